package dev.herald.server;

import dev.herald.FieldPath;
import dev.herald.FieldPath;
import dev.herald.IllegalTransitionException;
import dev.herald.InvalidInputException;
import dev.herald.NoticeNotFoundException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/** Per-item results of a batch: {@code status} 200 with the notice, or 400/404/409 with an error. */
final class NoticeBatch {
  private final ObjectNode out = Views.object();
  private final ArrayNode results = out.putArray("results");
  private int succeeded;
  private int failed;
  private final List<String> done = new ArrayList<>();
  private String firstDone;

  interface Step {
    ObjectNode run();
  }

  /**
   * Runs one item's step.
   *
   * @param idField the path of the item's id, e.g. {@code ids[2]} or {@code notices[2].id}
   * @param itemPath the path of the item, for errors about its other fields
   */
  void run(int index, UUID id, String idField, String itemPath, Step step) {
    ObjectNode r = results.addObject();
    r.put("index", index);
    r.put("id", id.toString());
    try {
      ObjectNode notice = step.run();
      r.put("status", 200);
      r.set("notice", notice);
      succeeded++;
      done.add(id.toString());
      if (firstDone == null) {
        firstDone = id.toString();
      }
      return;
    } catch (NoticeNotFoundException e) {
      fail(r, 404, "not_found", idField, e.getMessage());
    } catch (IllegalTransitionException e) {
      fail(r, 409, "illegal_transition", idField, e.getMessage());
    } catch (InvalidInputException e) {
      String field = e.field().equals("edit") ? itemPath
          : NoticeCreateController.itemField(FieldPath.parse(itemPath).then(e.path()), false);
      fail(r, 400, "invalid_input", field, e.reason());
    } catch (ApiException e) {
      if (e.status() != 400 || e.field() == null) {
        throw e;
      }
      fail(r, 400, "invalid_input", e.field(), e.reason());
    }
    failed++;
  }

  private static void fail(ObjectNode r, int status, String error, String field, String reason) {
    r.put("status", status);
    ObjectNode e = r.putObject("error");
    e.put("error", error);
    e.put("field", field);
    e.put("reason", reason);
  }

  ObjectNode out() {
    out.put("succeeded", succeeded);
    out.put("failed", failed);
    return out;
  }

  /** Records the items that succeeded, if any, in the audit log. */
  void audit(AuditLog audit, Caller caller, String action) {
    if (succeeded > 0) {
      audit.record(caller, caller.actingTenant(), action, succeeded == 1 ? firstDone : null,
          succeeded + " notice(s): " + Views.bounded(String.join(", ", done), 3500));
    }
  }
}
