package dev.herald.json;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.InvalidInputException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTreeTest {
  @Test
  void readsNestedValuesByDottedPath() {
    Object tree = JsonTree.parse("""
        {"order": {"id": 42, "items": [{"sku": "A\\u00e9\\n"}, {"sku": "B"}], "paid": true, "note": null},
         "total": 1.5e2}""", "payload");
    assertThat(JsonTree.at(tree, "order.id")).hasToString("42");
    assertThat(JsonTree.at(tree, "order.items.0.sku")).isEqualTo("Aé\n");
    assertThat(JsonTree.at(tree, "order.items.1.sku")).isEqualTo("B");
    assertThat(JsonTree.at(tree, "order.items.2.sku")).isNull();
    assertThat(JsonTree.at(tree, "order.paid")).isEqualTo(true);
    assertThat(JsonTree.at(tree, "order.note")).isNull();
    assertThat(JsonTree.at(tree, "total")).hasToString("1.5e2");
    assertThat(JsonTree.at(tree, "order.items")).isInstanceOf(List.class);
    assertThat(JsonTree.at(tree, "order")).isInstanceOf(Map.class);
  }

  @Test
  void rawMembersKeepEachTopLevelValueAsWritten() {
    Map<String, String> m = JsonTree.rawMembers("{ \"a\" : {\"x\": [1, 2]} , \"b\":\"s\\\"t\", \"c\": -0.5 }", "body");
    assertThat(m).containsExactly(Map.entry("a", "{\"x\": [1, 2]}"), Map.entry("b", "\"s\\\"t\""), Map.entry("c", "-0.5"));
  }

  @Test
  void refusesWhatIsNotJsonNamingTheField() {
    assertThatThrownBy(() -> JsonTree.parse("{\"a\":}", "payload"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("payload"));
    assertThatThrownBy(() -> JsonTree.rawMembers("[1]", "body"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.reason()).contains("JSON object"));
  }
}
