package dev.herald.docs;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** The README's order service: closes unpaid orders when asked by a notice. */
public class OrderService {
  final List<String> closed = new CopyOnWriteArrayList<>();

  public void closeUnpaid(String payload) {
    closed.add(payload);
  }
}
