package dev.herald.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.InvalidInputException;
import dev.herald.json.JsonTree;
import org.junit.jupiter.api.Test;

/** The JSON Schema subset and the payload filter: what they accept, and the path and reason of what they refuse. */
class JsonSchemaTest {
  private static final JsonSchema ORDER = JsonSchema.parse("""
      {"$schema": "https://json-schema.org/draft/2020-12/schema", "title": "order.paid",
       "type": "object", "required": ["order"], "additionalProperties": false,
       "properties": {
         "order": {"$ref": "#/$defs/order"},
         "note": {"type": ["string", "null"], "maxLength": 5}},
       "$defs": {"order": {"type": "object", "required": ["id", "items"],
         "properties": {
           "id": {"type": "integer", "exclusiveMinimum": 0},
           "currency": {"enum": ["EUR", "USD"]},
           "paidAt": {"type": "string", "format": "date-time"},
           "email": {"type": "string", "format": "email"},
           "sku": {"type": "string", "pattern": "^[A-Z]{3}-\\\\d+$"},
           "items": {"type": "array", "minItems": 1, "items": {"type": "object", "required": ["sku", "qty"],
             "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1, "maximum": 99}}}},
           "channel": {"oneOf": [{"const": "web"}, {"const": "shop"}]},
           "coupon": {"anyOf": [{"type": "null"}, {"type": "string", "minLength": 4}]},
           "test": {"not": {"const": true}}}}}}""", "schema");

  private static String refusal(String payload) {
    try {
      ORDER.validate(JsonTree.parse(payload, "payload"), "payload");
      return "accepted";
    } catch (InvalidInputException e) {
      return e.field() + ": " + e.reason();
    }
  }

  @Test
  void aPayloadThatFitsPasses() {
    assertThat(refusal("""
        {"order": {"id": 1, "currency": "EUR", "paidAt": "2025-03-30T02:30:00+02:00", "email": "a@b.example",
         "sku": "ABC-12", "items": [{"sku": "x", "qty": 2.0}], "channel": "web", "coupon": null, "test": false},
         "note": null}""")).isEqualTo("accepted");
  }

  @Test
  void eachRefusalNamesThePathAndWhy() {
    assertThat(refusal("{}")).isEqualTo("payload.order: is required");
    assertThat(refusal("{\"order\": {\"id\": 1, \"items\": []}}"))
        .isEqualTo("payload.order.items: must have at least 1 item(s), has 0");
    assertThat(refusal("{\"order\": {\"id\": 1, \"items\": [{\"sku\": \"x\", \"qty\": 1}, {\"sku\": 5, \"qty\": 1}]}}"))
        .isEqualTo("payload.order.items[1].sku: must be a string, was an integer");
    assertThat(refusal("{\"order\": {\"id\": 1, \"items\": [{\"sku\": \"x\", \"qty\": 100}]}}"))
        .isEqualTo("payload.order.items[0].qty: must be at most 99, was 100");
    assertThat(refusal("{\"order\": {\"id\": 0, \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .isEqualTo("payload.order.id: must be more than 0, was 0");
    assertThat(refusal("{\"order\": {\"id\": 1, \"currency\": \"GBP\", \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .isEqualTo("payload.order.currency: must be one of [\"EUR\", \"USD\"], was \"GBP\"");
    assertThat(refusal("{\"order\": {\"id\": 1, \"paidAt\": \"yesterday\", \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .isEqualTo("payload.order.paidAt: must be a date-time, was \"yesterday\"");
    assertThat(refusal("{\"order\": {\"id\": 1, \"sku\": \"abc-1\", \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .isEqualTo("payload.order.sku: must match the pattern ^[A-Z]{3}-\\d+$");
    assertThat(refusal("{\"order\": {\"id\": 1, \"channel\": \"fax\", \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .startsWith("payload.order.channel: matches none of the oneOf schemas");
    assertThat(refusal("{\"order\": {\"id\": 1, \"coupon\": \"ab\", \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .startsWith("payload.order.coupon: matches none of the anyOf schemas");
    assertThat(refusal("{\"order\": {\"id\": 1, \"test\": true, \"items\": [{\"sku\": \"x\", \"qty\": 1}]}}"))
        .isEqualTo("payload.order.test: must not match the schema under not");
    assertThat(refusal("{\"order\": {\"id\": 1, \"items\": [{\"sku\": \"x\", \"qty\": 1}]}, \"extra\": 1}"))
        .isEqualTo("payload.extra: is not a known property (additionalProperties is false); known: [order, note]");
    assertThat(refusal("{\"order\": {\"id\": 1, \"items\": [{\"sku\": \"x\", \"qty\": 1}]}, \"note\": \"too long\"}"))
        .isEqualTo("payload.note: must be at most 5 character(s) long");
    assertThat(refusal("[1]")).isEqualTo("payload: must be an object, was an array");
  }

  @Test
  void aSchemaWithAKeywordHeraldDoesNotCheckIsRefusedAtSave() {
    assertThatThrownBy(() -> JsonSchema.parse("{\"properties\": {\"a\": {\"dependentRequired\": {}}}}", "schema"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> {
          assertThat(e.field()).isEqualTo("schema");
          assertThat(e.reason()).startsWith("at #/properties/a/dependentRequired: keyword 'dependentRequired' is not"
              + " supported by Herald's JSON Schema subset");
        });
    assertThatThrownBy(() -> JsonSchema.parse("{\"$ref\": \"#/$defs/missing\"}", "schema"))
        .hasMessageContaining("does not name a schema");
    assertThatThrownBy(() -> JsonSchema.parse("{\"type\": \"float\"}", "schema"))
        .hasMessageContaining("'float' is not a type");
    assertThatThrownBy(() -> JsonSchema.parse("{\"format\": \"ipv4\"}", "schema"))
        .hasMessageContaining("format 'ipv4' is not checked by Herald");
    assertThatThrownBy(() -> JsonSchema.parse("{\"pattern\": \"[\"}", "schema"))
        .hasMessageContaining("not a regular expression");
    assertThatCode(() -> JsonSchema.parse("true", "schema")).doesNotThrowAnyException();
  }

  @Test
  void filtersCompareValuesAndRefuseUnknownOperators() {
    PayloadFilter f = PayloadFilter.parse("""
        {"order.country": {"$in": ["DE", "AT"]}, "order.total": {"$gte": 100, "$lt": 1000},
         "order.test": {"$exists": false}, "tags.0": "vip", "order.currency": {"$ne": "USD"}}""", "filter");
    assertThat(f.matches(JsonTree.parse("{\"order\": {\"country\": \"AT\", \"total\": 100.0}, \"tags\": [\"vip\"]}",
        "p"))).isTrue();
    assertThat(f.matches(JsonTree.parse("{\"order\": {\"country\": \"AT\", \"total\": 99.99}, \"tags\": [\"vip\"]}",
        "p"))).isFalse();
    assertThat(f.matches(JsonTree.parse("{\"order\": {\"country\": \"AT\", \"total\": 200, \"test\": null},"
        + " \"tags\": [\"vip\"]}", "p"))).as("test is present, if null").isFalse();
    assertThat(f.matches(JsonTree.parse("{\"order\": {\"country\": \"AT\", \"total\": \"200\"}, \"tags\": [\"vip\"]}",
        "p"))).as("a string is not a number").isFalse();
    assertThat(f.matches(JsonTree.parse("{\"order\": {\"country\": \"AT\", \"total\": 200, \"currency\": \"USD\"},"
        + " \"tags\": [\"vip\"]}", "p"))).isFalse();
    assertThatThrownBy(() -> PayloadFilter.parse("{\"a\": {\"$regex\": \"x\"}}", "filter"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("filter.a.$regex"));
    assertThatThrownBy(() -> PayloadFilter.parse("[1]", "filter"))
        .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("filter"));
  }
}
