package dev.herald.spring;

import static org.assertj.core.api.Assertions.assertThat;

import dev.herald.EngineSetting;
import java.beans.PropertyDescriptor;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.BeanUtils;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Each engine setting is declared once, in {@link EngineSetting}; this test fails when the starter's
 * properties, its configuration metadata or the README's table drift from it.
 */
class EngineSettingsDriftTest {
  /** The starter's own top-level properties, which are not engine settings. */
  static final Set<String> STARTER_OWN = Set.of("enabled", "autoStart", "failOnUnknownProperties", "h2File",
      "verifyHandlers", "definitions", "health", "publisher");

  @Test
  void everySettingIsAPropertyOfItsTypeAndNothingElseIs() {
    Map<String, Class<?>> properties = new LinkedHashMap<>();
    for (PropertyDescriptor p : BeanUtils.getPropertyDescriptors(HeraldProperties.class)) {
      if (p.getWriteMethod() != null) {
        properties.put(p.getName(), p.getPropertyType());
      }
    }
    for (EngineSetting s : EngineSetting.values()) {
      assertThat(properties).as("a property for " + s).containsKey(s.settingName());
      assertThat(properties.get(s.settingName())).as(s.settingName()).isEqualTo(switch (s.kind()) {
        case DURATION, DURATION_OR_OFF -> Duration.class;
        case COUNT -> Integer.class;
        case SHARE -> Double.class;
        case NAME -> String.class;
        case NAMES, SHARDS -> Set.class;
      });
    }
    Set<String> settings = Arrays.stream(EngineSetting.values()).map(EngineSetting::settingName).collect(Collectors.toSet());
    assertThat(properties.keySet()).as("properties that are neither engine settings nor the starter's own")
        .allMatch(p -> settings.contains(p) || STARTER_OWN.contains(p));
  }

  @Test
  void theMetadataGivesEachSettingItsDefault() throws IOException {
    JsonNode generated = JsonMapper.shared().readTree(Files.readString(
        Path.of("target/classes/META-INF/spring-configuration-metadata.json")));
    Map<String, JsonNode> byName = new LinkedHashMap<>();
    generated.get("properties").forEach(p -> byName.put(p.get("name").asString(), p));
    for (EngineSetting s : EngineSetting.values()) {
      JsonNode p = byName.get("herald." + s.property());
      assertThat(p).as("metadata of herald." + s.property()).isNotNull();
      assertThat(p.get("description").asString()).as("description of herald." + s.property())
          .contains("Default: " + s.defaultText());
      if (hasValueDefault(s)) {
        assertThat(p.get("defaultValue")).as("defaultValue of herald." + s.property()).isNotNull();
        assertThat(p.get("defaultValue").asString()).as("defaultValue of herald." + s.property())
            .isEqualTo(s.defaultText());
      }
    }
  }

  @Test
  void theReadmeTableListsEverySettingWithItsDefaultAndRange() throws IOException {
    String readme = Files.readString(Path.of("README.md"));
    String start = "<!-- engine settings: generated from dev.herald.EngineSetting by EngineSettingsDriftTest -->\n";
    String end = "<!-- end of engine settings -->";
    assertThat(readme).contains(start).contains(end);
    String table = readme.substring(readme.indexOf(start) + start.length(), readme.indexOf(end));
    if (Boolean.getBoolean("herald.writeReadme")) { // -Dherald.writeReadme=true regenerates the table
      Files.writeString(Path.of("README.md"), readme.replace(start + table, start + table()));
      return;
    }
    assertThat(table).as("the README's table; paste this between the markers").isEqualTo(table());
  }

  static boolean hasValueDefault(EngineSetting s) {
    return switch (s.kind()) {
      case DURATION, DURATION_OR_OFF, COUNT, SHARE -> true;
      case NAME, NAMES, SHARDS -> false;
    };
  }

  /** The README's table of engine settings, as the descriptor gives it. */
  static String table() {
    StringBuilder out = new StringBuilder("| property | default | accepts | what it does |\n|---|---|---|---|\n");
    for (EngineSetting s : EngineSetting.values()) {
      String def = hasValueDefault(s) ? "`" + s.defaultText() + "`" : s.defaultText();
      out.append("| `herald.").append(s.property()).append("` | ").append(def).append(" | ").append(s.range())
          .append(" | ").append(s.doc()).append(" |\n");
    }
    return out.toString();
  }
}
