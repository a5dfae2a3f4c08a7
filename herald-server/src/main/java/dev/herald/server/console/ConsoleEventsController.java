package dev.herald.server.console;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import dev.herald.Page;
import dev.herald.events.EventType;
import dev.herald.events.PublishedEvent;
import java.util.UUID;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * The console's event pages: events with where each went ("this event went to these 6 endpoints; 5
 * took it"), and the event endpoints (partners) with their subscriptions; admins enable and disable
 * endpoints. Every action calls {@code herald.events()}, as the API does.
 */
@Controller
@RequestMapping("/console")
class ConsoleEventsController extends TenantConsolePage {
  private final Herald herald;

  ConsoleEventsController(Herald herald) {
    this.herald = herald;
  }

  @GetMapping("/events")
  String events(@RequestParam(required = false) String type, @RequestParam(defaultValue = "0") int page, Model model,
      Authentication auth) {
    int p = Math.max(0, page);
    Page<PublishedEvent> events = herald.events().list(tenant(auth), type == null || type.isBlank() ? null : type, null,
        null, p * ConsoleController.PAGE_SIZE, ConsoleController.PAGE_SIZE);
    model.addAttribute("events", events.items());
    model.addAttribute("hasMore", events.hasMore());
    model.addAttribute("page", p);
    model.addAttribute("type", type == null ? "" : type);
    model.addAttribute("types", herald.events().types(tenant(auth)).stream().map(EventType::name).toList());
    return "console/events";
  }

  @GetMapping("/events/{id}")
  String event(@PathVariable String id, Model model, Authentication auth) {
    UUID uuid;
    try {
      uuid = UUID.fromString(id);
    } catch (IllegalArgumentException e) {
      uuid = null;
    }
    PublishedEvent e = uuid == null ? null : herald.events().find(tenant(auth), uuid).orElse(null);
    if (e == null) {
      model.addAttribute("error", "No event with id " + id);
      return "console/denied";
    }
    model.addAttribute("e", e);
    return "console/event";
  }

  @GetMapping("/event-endpoints")
  String endpoints(Model model, Authentication auth) {
    model.addAttribute("endpoints", herald.events().endpoints(tenant(auth)));
    model.addAttribute("types", herald.events().types(tenant(auth)));
    return "console/event-endpoints";
  }

  @PostMapping("/event-endpoints/{id}/{action:enable|disable}")
  String enable(@PathVariable String id, @PathVariable String action, RedirectAttributes flash, Authentication auth) {
    try {
      herald.events().enable(tenant(auth), id, action.equals("enable"));
      flash.addFlashAttribute("message", "endpoint " + id + (action.equals("enable") ? " gets new events again"
          : " gets no new events (what it has is still delivered)"));
    } catch (InvalidInputException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/event-endpoints";
  }
}
