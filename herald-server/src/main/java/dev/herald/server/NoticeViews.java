package dev.herald.server;

import dev.herald.Notice;
import dev.herald.NoticeDetail;
import tools.jackson.databind.node.ObjectNode;

/** A notice as the notice routes show it: keys as their tenant wrote them. */
final class NoticeViews {
  private NoticeViews() {}

  static ObjectNode view(Notice n) {
    ObjectNode o = Views.notice(n);
    if (n.idempotencyKey() != null) {
      o.put("idempotencyKey", TenantKeys.own(n.idempotencyKey()));
    }
    return o;
  }

  /** With the attempt log. */
  static ObjectNode detail(NoticeDetail d) {
    ObjectNode o = Views.detail(d);
    if (d.notice().idempotencyKey() != null) {
      o.put("idempotencyKey", TenantKeys.own(d.notice().idempotencyKey()));
    }
    return o;
  }
}
