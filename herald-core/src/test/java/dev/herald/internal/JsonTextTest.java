package dev.herald.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.InvalidInputException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class JsonTextTest {

  private static void assertRefused(String text, String reason) {
    assertThatThrownBy(() -> JsonText.requireValid(text, "payload"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("payload");
              assertThat(e.reason()).startsWith(reason);
            });
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "{}",
        "[]",
        "0",
        "-0",
        "1",
        "-12.5e+3",
        "1E-7",
        "0.0",
        "123456789012345678901234567890",
        "true",
        "false",
        "null",
        "\"\"",
        "\"text\"",
        " \t\r\n{ \"a\" : [ 1 , 2.5 , true , null , { } , [ ] ] } \n",
        "{\"a\":{\"b\":{\"c\":[[[\"deep\"]]]}},\"d\":-1}",
        "[\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u00e9 \\uD83D\\uDE00 \\uABCD\"]",
        "\"caf\u00e9 \uD83D\uDE00 \u2028\"",
        "{\"a\":1,\"a\":2}",
        "\"\\ud800\"",
      })
  void acceptsValidJson(String text) {
    assertThatCode(() -> JsonText.requireValid(text, "payload")).doesNotThrowAnyException();
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "|not valid JSON at offset 0: expected a value (object, array, string, number, true, false or null), found end of input",
        "`   `|not valid JSON at offset 3: expected a value",
        "{\"a\":1 \"b\":2}|not valid JSON at offset 7: expected ',' or '}', found '\"'",
        "[1 2]|not valid JSON at offset 3: expected ',' or ']', found '2'",
        "[1,]|not valid JSON at offset 3: expected a value",
        "{\"a\":1,}|not valid JSON at offset 7: expected a string key, found '}'",
        "{a:1}|not valid JSON at offset 1: expected a string key or '}', found 'a'",
        "{'a':1}|not valid JSON at offset 1: expected a string key or '}'",
        "{\"a\" 1}|not valid JSON at offset 5: expected ':', found '1'",
        "{\"a\":}|not valid JSON at offset 5: expected a value",
        "[1]]|not valid JSON at offset 3: expected end of input, found ']'",
        "{}{}|not valid JSON at offset 2: expected end of input",
        "1 2|not valid JSON at offset 2: expected end of input",
        "[|not valid JSON at offset 1: expected a value (object, array, string, number, true, false or null), found end of input",
        "{|not valid JSON at offset 1: expected a string key or '}', found end of input",
        "[1|not valid JSON at offset 2: expected ',' or ']', found end of input",
        "{\"a\":[1}|not valid JSON at offset 7: expected ',' or ']', found '}'",
        "01|not valid JSON at offset 1: leading zeros are not allowed",
        "-01|not valid JSON at offset 2: leading zeros are not allowed",
        "-|not valid JSON at offset 1: expected a digit, found end of input",
        "1.|not valid JSON at offset 2: expected a digit",
        ".5|not valid JSON at offset 0: expected a value",
        "1.e3|not valid JSON at offset 2: expected a digit, found 'e'",
        "1e|not valid JSON at offset 2: expected a digit",
        "1e+|not valid JSON at offset 3: expected a digit",
        "+1|not valid JSON at offset 0: expected a value",
        "NaN|not valid JSON at offset 0: expected a value",
        "[-Infinity]|not valid JSON at offset 2: expected a digit, found 'I'",
        "0x1F|not valid JSON at offset 1: expected end of input, found 'x'",
        "tru|not valid JSON at offset 0: expected 'true'",
        "nul|not valid JSON at offset 0: expected 'null'",
        "True|not valid JSON at offset 0: expected a value",
        "[falsey]|not valid JSON at offset 6: expected ',' or ']', found 'y'",
        "\"abc|not valid JSON at offset 4: expected '\"' to close the string that starts at offset 0",
        "\"\\x\"|not valid JSON at offset 2: invalid escape",
        "\"\\u12G4\"|not valid JSON at offset 5: expected 4 hex digits after \\u, found 'G'",
        "\"\\u12\"|not valid JSON at offset 5: expected 4 hex digits after \\u",
        "\"\\|not valid JSON at offset 2: expected '\"' to close the string",
        "// comment|not valid JSON at offset 0: expected a value",
      })
  void refusesInvalidJsonWithOffset(String text, String reason) {
    assertRefused(text == null ? "" : text, reason);
  }

  @Test
  void refusesNull() {
    assertThatThrownBy(() -> JsonText.requireValid(null, "payload"))
        .isInstanceOfSatisfying(
            InvalidInputException.class,
            e -> {
              assertThat(e.field()).isEqualTo("payload");
              assertThat(e.reason()).isEqualTo("must not be null");
            });
  }

  @Test
  void refusesControlCharactersAndUnpairedSurrogatesInStrings() {
    assertRefused(
        "\"a\nb\"",
        "not valid JSON at offset 2: control character in string, must be escaped, found U+000A");
    assertRefused("\"a\u0000\"", "not valid JSON at offset 2: control character in string");
    assertRefused("[\"\uD800\"]", "not valid JSON at offset 2: unpaired surrogate in string");
    assertRefused("\"\uDC00\uD800\"", "not valid JSON at offset 1: unpaired surrogate in string");
    assertRefused("\"\uD83D", "not valid JSON at offset 1: unpaired surrogate in string");
  }

  @Test
  void refusesWhitespaceThatJsonDoesNotKnow() {
    assertRefused("\u00a0{}", "not valid JSON at offset 0: expected a value (object, array, string, number, true, false or null), found U+00A0");
    assertRefused("{}\u000b", "not valid JSON at offset 2: expected end of input, found U+000B");
  }

  @Test
  void acceptsNestingUpToTheLimit() {
    String arrays = "[".repeat(JsonText.MAX_DEPTH) + "]".repeat(JsonText.MAX_DEPTH);
    assertThatCode(() -> JsonText.requireValid(arrays, "payload")).doesNotThrowAnyException();
    String objects = "{\"a\":".repeat(JsonText.MAX_DEPTH - 1) + "[1]" + "}".repeat(JsonText.MAX_DEPTH - 1);
    assertThatCode(() -> JsonText.requireValid(objects, "payload")).doesNotThrowAnyException();
  }

  @Test
  void tracksObjectsAndArraysAtEveryDepth() {
    StringBuilder open = new StringBuilder();
    StringBuilder close = new StringBuilder();
    for (int depth = 0; depth < JsonText.MAX_DEPTH; depth++) {
      if (depth % 3 == 0) {
        open.append("{\"k\":");
        close.insert(0, '}');
      } else {
        open.append("[0,");
        close.insert(0, ']');
      }
    }
    String json = open + "null" + close;
    assertThatCode(() -> JsonText.requireValid(json, "payload")).doesNotThrowAnyException();
    // The same text with one closing bracket of the wrong kind, deep inside.
    int wrong = json.length() - 300;
    char swapped = json.charAt(wrong) == '}' ? ']' : '}';
    String broken = json.substring(0, wrong) + swapped + json.substring(wrong + 1);
    assertRefused(broken, "not valid JSON at offset " + wrong + ": expected ','");
  }

  @Test
  void refusesNestingBeyondTheLimitWithoutOverflowingTheStack() {
    assertRefused(
        "[".repeat(JsonText.MAX_DEPTH + 1) + "]".repeat(JsonText.MAX_DEPTH + 1),
        "not valid JSON at offset 512: nested deeper than 512 levels");
    assertRefused(
        "[".repeat(10_000) + "]".repeat(10_000),
        "not valid JSON at offset 512: nested deeper than 512 levels");
    assertRefused("{\"a\":".repeat(10_000), "not valid JSON at offset 2560: nested deeper than 512 levels");
  }

  @Test
  void validatesLargeDocuments() {
    StringBuilder json = new StringBuilder("[");
    for (int i = 0; i < 200_000; i++) {
      json.append(i == 0 ? "" : ",").append("{\"id\":").append(i).append(",\"name\":\"n\\u00e9\"}");
    }
    String text = json.append(']').toString();
    JsonText.requireValid(text, "payload");
    assertRefused(text.substring(0, text.length() - 1), "not valid JSON at offset " + (text.length() - 1));
  }
}
