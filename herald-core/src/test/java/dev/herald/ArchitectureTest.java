package dev.herald;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaMethod;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.stream.Stream;

/** Keeps the layering that docs/ARCHITECTURE.md describes. */
@AnalyzeClasses(packages = "dev.herald", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

  @ArchTest
  static final ArchRule spiStandsAlone = noClasses().that().resideInAPackage("dev.herald.spi..")
      .should().dependOnClassesThat().resideInAnyPackage(
          "dev.herald.engine..", "dev.herald.store..", "dev.herald.channel..", "dev.herald.testing..");

  @ArchTest
  static final ArchRule engineKnowsNoStoreOrChannelImplementation = noClasses()
      .that().resideInAPackage("dev.herald.engine..")
      .should().dependOnClassesThat().resideInAnyPackage("dev.herald.store..", "dev.herald.channel..", "java.sql.DriverManager");

  @ArchTest
  static final ArchRule storeAndChannelsDoNotReachIntoTheEngine = noClasses()
      .that().resideInAnyPackage("dev.herald.store..", "dev.herald.channel..", "dev.herald.schedule..")
      .should().dependOnClassesThat().resideInAPackage("dev.herald.engine..");

  @ArchTest
  static final ArchRule engineTakesTimeFromTheInjectedClock = noClasses()
      .that().resideInAnyPackage("dev.herald.engine..", "dev.herald.store..")
      .should().callMethod(java.time.Instant.class, "now")
      .orShould().callMethod(System.class, "currentTimeMillis");

  /** What other modules and users may use; the rest (engine, store.jdbc, internal) may change in any release. */
  static final String[] API = {"dev.herald", "dev.herald.spi..", "dev.herald.schedule..", "dev.herald.testing..",
      "dev.herald.intake..", "dev.herald.tracing..", "dev.herald.json..", "dev.herald.jdbc..", "dev.herald.health..",
      "dev.herald.metrics..", "dev.herald.channel.local.."};

  @ArchTest
  static final ArchRule apiSignaturesNameNoInternalType = methods().that().arePublic()
      .and().areDeclaredInClassesThat().arePublic().and().areDeclaredInClassesThat().resideInAnyPackage(API)
      .should(new ArchCondition<JavaMethod>("name no type of the engine, the JDBC store or internal") {
        @Override
        public void check(JavaMethod method, ConditionEvents events) {
          Stream.concat(Stream.of(method.getRawReturnType()), method.getRawParameterTypes().stream())
              .map(JavaClass::getPackageName)
              .filter(p -> p.startsWith("dev.herald.engine") || p.startsWith("dev.herald.store.jdbc")
                  || p.startsWith("dev.herald.internal"))
              .forEach(p -> events.add(SimpleConditionEvent.violated(method, method.getFullName() + " names " + p)));
        }
      });
}
