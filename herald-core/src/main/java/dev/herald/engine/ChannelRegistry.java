package dev.herald.engine;

import dev.herald.InvalidInputException;
import dev.herald.NoticeDefinition;
import dev.herald.spi.Channel;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The channels this node can deliver through, by name. */
final class ChannelRegistry {
  private final Map<String, Channel> byName = new LinkedHashMap<>();

  private final OptionCheck options;

  ChannelRegistry(List<Channel> channels, List<dev.herald.spi.OptionOwner> optionOwners) {
    this.options = new OptionCheck(optionOwners);
    for (Channel c : channels) {
      if (byName.putIfAbsent(c.name(), c) != null) {
        throw new IllegalArgumentException("two channels named '" + c.name() + "'");
      }
    }
  }

  Channel get(String name) {
    return byName.get(name);
  }

  void validate(NoticeDefinition d) {
    Channel c = byName.get(d.channel());
    if (c == null) {
      throw new InvalidInputException("channel", "no channel named '" + d.channel() + "' on this node; known: " + byName.keySet());
    }
    if (d.perNoticeTarget() && !c.perNoticeTargets()) {
      throw new InvalidInputException("target", "is required: channel '" + d.channel() + "' delivers to its"
          + " definition's target (notices that each give their own target need a channel that allows it, such as"
          + " http)");
    }
    options.check(d, c);
    c.validate(d);
  }

  void validateTarget(String channel, String target) {
    Channel c = byName.get(channel);
    if (c != null) {
      c.validateTarget(target);
    }
  }

  void closeAll() {
    for (Channel c : byName.values()) {
      c.close();
    }
  }
}
