package dev.herald.spring.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The READMEs' and docs pages' Java examples are compiled code: each block after a marker such as
 * {@code <!-- snippet: path/To.java#tag -->} must equal the region between {@code // tag::tag[]} and
 * {@code // end::tag[]} of that source (indentation of the region removed). Fix a failure by copying
 * the source region into the README, never the other way round.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  /** A marker and the block after it, both indented alike (inside a list item, say). */
  private static final Pattern SNIPPET =
      Pattern.compile("(?m)^( *)<!-- snippet: (\\S+)#(\\S+) -->\\R\\1```java\\R(.*?)^\\1```", Pattern.DOTALL);

  @ParameterizedTest
  @ValueSource(strings = {"README.md", "docs/concepts.md", "docs/java.md", "docs/spring.md", "docs/server.md",
      "docs/channels.md", "docs/operations.md", "docs/guarantees.md", "docs/performance.md",
      "herald-spring-boot-starter/README.md"})
  void everyJavaSnippetIsTheRegionOfACompiledSource(String readme) throws IOException {
    String text = Files.readString(ROOT.resolve(readme));
    Matcher m = SNIPPET.matcher(text);
    List<String> checked = new ArrayList<>();
    while (m.find()) {
      String indent = m.group(1);
      String source = m.group(2);
      String tag = m.group(3);
      String block = m.group(4).lines().map(l -> l.startsWith(indent) ? l.substring(indent.length()) : l)
          .map(l -> l + "\n").reduce("", String::concat);
      assertThat(block).as(readme + ": snippet " + source + "#" + tag).isEqualTo(region(source, tag));
      checked.add(source + "#" + tag);
    }
    long javaBlocks = text.lines().filter(l -> l.strip().equals("```java")).count();
    assertThat(checked).as(readme + ": every Java block is a compiled snippet").hasSize((int) javaBlocks);
  }

  /** The lines between the tag's markers, without their common indentation, each ending in a newline. */
  static String region(String source, String tag) throws IOException {
    List<String> lines = Files.readAllLines(ROOT.resolve(source));
    int start = indexOf(lines, "// tag::" + tag + "[]", source);
    int end = indexOf(lines, "// end::" + tag + "[]", source);
    List<String> body = lines.subList(start + 1, end);
    int indent = body.stream().filter(l -> !l.isBlank())
        .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
    StringBuilder out = new StringBuilder();
    for (String l : body) {
      out.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
    }
    return out.toString();
  }

  private static int indexOf(List<String> lines, String marker, String source) {
    for (int i = 0; i < lines.size(); i++) {
      if (lines.get(i).strip().equals(marker)) {
        return i;
      }
    }
    throw new AssertionError(source + " has no line " + marker);
  }
}
