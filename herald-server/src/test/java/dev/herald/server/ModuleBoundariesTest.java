package dev.herald.server;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import dev.herald.Herald;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * The boundary of herald-core as the other modules see it: they use its API and SPI packages only,
 * never the engine, the JDBC store or {@code internal}, which may change in any release, and they
 * name none of the core's tables (they read through {@link dev.herald.NoticeReports}). Checked on
 * the main classes of every module on the server's class path (the server, the starter and the four
 * channels), herald-core's own left out. (A module descriptor would say the same, but Spring Boot's
 * class-path scanning and the shaded test dependencies make JPMS more trouble than it is worth here.)
 */
class ModuleBoundariesTest {
  private static final String CORE = Herald.class.getProtectionDomain().getCodeSource().getLocation().getPath();

  private static final JavaClasses MODULES = new ClassFileImporter()
      .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
      .withImportOption(location -> !location.contains(CORE))
      .importPackages("dev.herald");

  @Test
  void everyModuleButTheCoreIsChecked() {
    assertThat(MODULES.stream().map(JavaClass::getName))
        .contains(HeraldServer.class.getName(), "dev.herald.spring.HeraldAutoConfiguration",
            "dev.herald.channel.http.HttpChannel", "dev.herald.channel.mail.MailChannel",
            "dev.herald.channel.kafka.KafkaChannel", "dev.herald.channel.amqp.AmqpChannel")
        .doesNotContain(Herald.class.getName(), "dev.herald.engine.DeliveryEngine");
  }

  @Test
  void noModuleReachesIntoTheCoresInternals() {
    noClasses().should().dependOnClassesThat()
        .resideInAnyPackage("dev.herald.engine..", "dev.herald.store.jdbc..", "dev.herald.internal..")
        .because("outside herald-core only its API and SPI packages are to be used (docs/ARCHITECTURE.md)")
        .check(MODULES);
  }

  /** Herald's own tables (the server's are {@code herald_server_*}). */
  private static final Pattern CORE_TABLE = Pattern.compile("herald_(notice|notice_history|attempt|idempotency|node|revocation"
      + "|confirmation|ordering_key|ordered|alert|definition|schema_version)\\b");

  @Test
  void noModuleNamesACoreTable() {
    List<String> naming = MODULES.stream()
        .filter(c -> c.getSource().isPresent() && CORE_TABLE.matcher(constants(c)).find())
        .map(JavaClass::getName).toList();
    assertThat(naming).as("classes whose text names a core table").isEmpty();
  }

  /** The class file as text: its string constants (SQL included) are in it as written. */
  private static String constants(JavaClass c) {
    try (InputStream in = c.getSource().orElseThrow().getUri().toURL().openStream()) {
      return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
