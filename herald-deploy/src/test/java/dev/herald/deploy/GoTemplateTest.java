package dev.herald.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The chart renderer against what Go's text/template and Helm print for the same input. */
class GoTemplateTest {

  static String render(String template, Object data) {
    GoTemplate.Parsed parsed = GoTemplate.parse("t", template);
    Map<String, List<GoTemplate.Node>> all = new HashMap<>(parsed.defined());
    all.put("t", parsed.body());
    return new Evaluator(all).execute("t", data);
  }

  @Test
  void trimMarkersEatTheWhitespaceBesideThemNewlinesIncluded() {
    assertThat(render("a  \n  {{- 1 }}  \n", Map.of())).isEqualTo("a1  \n");
    assertThat(render("a {{ 1 -}} \n\n b", Map.of())).isEqualTo("a 1b");
    assertThat(render("x\n{{- /* a comment */ -}}\ny", Map.of())).isEqualTo("xy");
    assertThat(render("{{-3}}", Map.of())).as("no space: a negative number").isEqualTo("-3");
  }

  @Test
  void conditionsFollowGoTruth() {
    String t = "{{ if .a }}A{{ else if .b }}B{{ else }}C{{ end }}";
    assertThat(render(t, Map.of("a", 1, "b", true))).isEqualTo("A");
    assertThat(render(t, Map.of("a", 0, "b", true))).isEqualTo("B");
    assertThat(render(t, Map.of("a", "", "b", List.of()))).isEqualTo("C");
    assertThat(render(t, Map.of("a", Map.of(), "b", false))).isEqualTo("C");
    assertThat(render("{{ with .m }}{{ .k }}{{ else }}none{{ end }}", Map.of("m", Map.of("k", "v")))).isEqualTo("v");
    assertThat(render("{{ with .m }}{{ .k }}{{ else }}none{{ end }}", Map.of())).isEqualTo("none");
  }

  @Test
  void rangeGoesThroughMapsInKeyOrderAndListsInOrder() {
    assertThat(render("{{ range $k, $v := .m }}{{ $k }}={{ $v }};{{ end }}", Map.of("m", Map.of("b", 2, "a", 1))))
        .isEqualTo("a=1;b=2;");
    assertThat(render("{{ range .l }}[{{ . }}]{{ else }}empty{{ end }}", Map.of("l", List.of("x", "y"))))
        .isEqualTo("[x][y]");
    assertThat(render("{{ range .l }}[{{ . }}]{{ else }}empty{{ end }}", Map.of("l", List.of()))).isEqualTo("empty");
    assertThat(render("{{ range $i, $e := .l }}{{ $i }}{{ $e }}{{ $.s }}{{ end }}", Map.of("l", List.of("x"), "s", "!")))
        .isEqualTo("0x!");
  }

  @Test
  void helmAndSprigFunctions() {
    assertThat(render("{{ define \"n\" }}a: {{ .x }}\nb: 2{{ end }}k:{{- include \"n\" . | nindent 2 }}", Map.of("x", 1)))
        .isEqualTo("k:\n  a: 1\n  b: 2");
    assertThat(render("{{ .missing | default \"d\" | quote }} {{ .s | quote }}", Map.of("s", "a \"b\"\n")))
        .isEqualTo("\"d\" \"a \\\"b\\\"\\n\"");
    assertThat(render("{{ printf \"%s-%s\" .a .b | trunc 5 | trimSuffix \"-\" }}", Map.of("a", "abcd", "b", "x")))
        .isEqualTo("abcd");
    assertThat(render("{{ toYaml .m }}", Map.of("m", Map.of("z", List.of("A"), "a", Map.of("t", "true", "n", 1)))))
        .isEqualTo("a:\n  n: 1\n  t: 'true'\nz:\n- A"); // Helm quotes with "; the same string
    assertThat(render("{{ \"pw\" | b64enc }} {{ \"\" | sha256sum }}", Map.of()))
        .isEqualTo("cHc= e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    assertThat(render("{{ $n := .a }}{{ if and $n (not .b) (eq $n 2) }}yes{{ end }}", Map.of("a", 2, "b", false)))
        .isEqualTo("yes");
    assertThat(render("{{ .a.missing }}|{{ contains \"b\" \"abc\" }}", Map.of("a", Map.of()))).isEqualTo("|true");
  }

  @Test
  void mistakesAndUnknownPartsAreRefusedNotGuessed() {
    assertThatThrownBy(() -> render("{{ required \"x is required\" .x }}", Map.of())).hasMessageContaining("x is required");
    assertThatThrownBy(() -> render("{{ .a.b.c }}", Map.of())).hasMessageContaining("nil pointer evaluating .b");
    assertThatThrownBy(() -> render("{{ lower .a }}", Map.of("a", "A"))).hasMessageContaining("unknown function lower");
    assertThatThrownBy(() -> render("\n{{ template \"x\" }}", Map.of())).hasMessageContaining("t:2: the template action");
    assertThatThrownBy(() -> render("{{ if .a }}x", Map.of())).hasMessageContaining("missing {{ end }}");
    assertThatThrownBy(() -> render("{{ $x }}", Map.of())).hasMessageContaining("undefined variable $x");
  }
}
