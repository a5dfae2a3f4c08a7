package dev.herald;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

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
}
