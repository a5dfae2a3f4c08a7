package dev.herald.engine;

import dev.herald.DidYouMean;
import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.spi.Channel;
import dev.herald.spi.DefinitionOption;
import dev.herald.spi.OptionOwner;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;

/**
 * Checks a definition's options when it is saved, against what its channel and the {@link
 * OptionOwner}s declare: an undeclared key is refused with the closest declared one, a value of the
 * wrong type names its option, then each owner checks its own. Only at save, so that a definition
 * stored before an option was retired still loads and delivers.
 */
final class OptionCheck {
  private final List<OptionOwner> owners;

  OptionCheck(List<OptionOwner> owners) {
    this.owners = List.copyOf(owners);
  }

  /** @throws InvalidInputException naming {@code options.<key>} */
  void check(NoticeDefinition d, Channel channel) {
    List<DefinitionOption> ofChannel = channel.options();
    for (String key : new TreeSet<>(d.options().keySet())) {
      Optional<OptionOwner> owner = owners.stream().filter(o -> key.startsWith(o.namespace())).findFirst();
      List<DefinitionOption> declared = owner.map(OptionOwner::options).orElse(ofChannel);
      Optional<DefinitionOption> option = declared.stream().filter(o -> o.matches(key)).findFirst();
      if (option.isPresent()) {
        option.get().check(key, d.options().get(key));
      } else if (owner.isPresent() || !ofChannel.isEmpty()) {
        throw unknown(key, d.channel(), owner, ofChannel);
      }
    }
    for (OptionOwner o : owners) {
      o.validate(d);
    }
  }

  private InvalidInputException unknown(String key, String channel, Optional<OptionOwner> owner,
      List<DefinitionOption> ofChannel) {
    List<DefinitionOption> known = new ArrayList<>(owner.map(OptionOwner::options).orElse(ofChannel));
    if (owner.isEmpty()) {
      owners.forEach(o -> known.addAll(o.options()));
    }
    List<String> shown = known.stream().map(DefinitionOption::shown).toList();
    String guess = DidYouMean.closest(key, known.stream().filter(o -> !o.family()).map(DefinitionOption::key).toList())
        .map(k -> "did you mean '" + k + "'? ").orElse("");
    String whose = owner.map(o -> "unknown option of " + o.name()).orElse("unknown option of channel " + channel);
    return new InvalidInputException("options." + key, whose + "; " + guess + "the known ones are "
        + String.join(", ", shown));
  }
}
