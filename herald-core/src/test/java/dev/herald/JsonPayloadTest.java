package dev.herald;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.herald.internal.JsonText;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A {@link JsonPayload} can only be made valid: checked by {@link JsonPayload#of}, or written by a
 * {@link JsonPayload.Writer} that refuses anything else (intake's side: {@link BadInputTest}).
 */
class JsonPayloadTest {
  @Test
  void aCheckedPayloadCannotCarryOtherText() {
    JsonPayload ok = JsonPayload.of("{}");
    assertThatThrownBy(() -> new NoticeRequest("ok", "{\"a\":}", null, null, null, null, null, null, null, null, ok))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(NoticeRequest.of("ok", ok).description("d").delay(Duration.ofMinutes(1)).checkedPayload())
        .as("kept through the withers").isSameAs(ok);
    assertThat(NoticeRequest.of("ok", "{}").checkedPayload()).isNull();
  }

  @Test
  void theWriterWritesCompactJsonWithJacksonsEscapes() {
    String all = "q\" b\\ s/ \b\t\n\f\r \u0001\u001f\u007f é \u2028 \uD83D\uDE00 lone \uD800 \uDC00.";
    JsonPayload p = JsonPayload.writer().startObject()
        .name("s").string(all)
        .name("n").startArray().number("1.10").number("-0").number("2E+3").bool(true).bool(false).nullValue()
        .startObject().endObject().startArray().endArray().endArray()
        .name("k\"").number("0")
        .endObject().payload();
    assertThat(p.text()).isEqualTo("{\"s\":\"q\\\" b\\\\ s/ \\b\\t\\n\\f\\r \\u0001\\u001F\u007f é \u2028 \uD83D\uDE00"
        + " lone \\uD800 \\uDC00.\",\"n\":[1.10,-0,2E+3,true,false,null,{},[]],\"k\\\"\":0}");
    JsonText.requireValid(p.text(), "payload");
    JsonPayload.Writer w = JsonPayload.writer().string("é\uD83D\uDE00\u0001");
    assertThat(w.utf8Length()).isEqualTo(w.payload().text().getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
  }

  @Test
  void theWriterRefusesWhatWouldNotBeJson() {
    assertThatThrownBy(() -> JsonPayload.writer().startObject().number("1"))
        .as("a value without a name").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().startArray().name("a"))
        .as("a name in an array").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().startObject().name("a").name("b"))
        .as("two names").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().startObject().name("a").endObject())
        .as("a name without a value").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().startArray().endObject())
        .as("a close that does not match").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().endArray()).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().nullValue().nullValue())
        .as("a second value").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().startArray().payload())
        .as("an open array").isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> JsonPayload.writer().payload()).as("nothing").isInstanceOf(IllegalStateException.class);
    for (String bad : List.of("", "-", "01", "1.", ".5", "1e", "1e+", "NaN", "Infinity", "0x1", "1 ", "+1", "1.5.2")) {
      assertThatThrownBy(() -> JsonPayload.writer().number(bad)).as(bad).isInstanceOf(IllegalArgumentException.class);
    }
    JsonPayload.Writer deep = JsonPayload.writer();
    for (int i = 0; i < JsonText.MAX_DEPTH; i++) {
      deep.startArray();
    }
    assertThatThrownBy(deep::startArray).isInstanceOfSatisfying(InvalidInputException.class,
        e -> assertThat(e.reason()).contains("nested deeper than " + JsonText.MAX_DEPTH));
  }
}
