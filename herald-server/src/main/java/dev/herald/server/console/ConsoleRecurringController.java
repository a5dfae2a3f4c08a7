package dev.herald.server.console;

import dev.herald.Herald;
import dev.herald.InvalidInputException;
import org.springframework.security.core.Authentication;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.servlet.mvc.support.RedirectAttributes;

/**
 * The console's recurring schedules of the user's tenant: cadence, next and last slot, slots skipped
 * after downtime, the last error; operators and admins pause and resume them.
 */
@Controller
@RequestMapping("/console")
class ConsoleRecurringController extends TenantConsolePage {
  private final Herald herald;

  ConsoleRecurringController(Herald herald) {
    this.herald = herald;
  }

  @GetMapping("/recurring")
  String recurring(Model model, Authentication auth) {
    model.addAttribute("schedules", herald.recurring().list(tenant(auth)));
    return "console/recurring";
  }

  @PostMapping("/recurring/{name}/{action:pause|resume}")
  String pause(@PathVariable String name, @PathVariable String action, RedirectAttributes flash, Authentication auth) {
    try {
      if (action.equals("pause")) {
        herald.recurring().pause(tenant(auth), name);
        flash.addFlashAttribute("message", "schedule " + name + " is paused: its slots pass without a notice");
      } else {
        var s = herald.recurring().resume(tenant(auth), name);
        flash.addFlashAttribute("message", "schedule " + name + " fires again, next at " + s.nextSlot());
      }
    } catch (InvalidInputException e) {
      flash.addFlashAttribute("error", e.getMessage());
    }
    return "redirect:/console/recurring";
  }
}
