package dev.herald.server;

import java.time.Duration;
import java.util.List;

/**
 * An answer other than success, turned into an RFC 9457 problem ({@code application/problem+json})
 * by {@link ApiErrors}: the HTTP status, a stable {@code error} code, and for input errors the
 * {@code field} path (e.g. {@code notices[3].fireAt}) and the {@code reason}.
 */
final class ApiException extends RuntimeException {
  /** One refused field: its path in the request and why. */
  record FieldError(String field, String reason) {}

  private final int status;
  private final String error;
  private final String field;
  private final String reason;
  private final List<FieldError> errors;
  private final Duration retryAfter;

  private ApiException(int status, String error, String detail, String field, String reason, List<FieldError> errors,
      Duration retryAfter) {
    super(detail);
    this.status = status;
    this.error = error;
    this.field = field;
    this.reason = reason;
    this.errors = errors == null ? List.of() : List.copyOf(errors);
    this.retryAfter = retryAfter;
  }

  /** 400: a field of the request is refused. */
  static ApiException invalid(String field, String reason) {
    reason = Views.serverWording(reason);
    return new ApiException(400, "invalid_input", field + ": " + reason, field, reason, null, null);
  }

  /** 400: several fields refused; the first is the headline. */
  static ApiException invalid(List<FieldError> refused) {
    List<FieldError> errors = refused.stream()
        .map(f -> new FieldError(f.field(), Views.serverWording(f.reason()))).toList();
    FieldError first = errors.getFirst();
    String detail = errors.size() == 1 ? first.field() + ": " + first.reason()
        : first.field() + ": " + first.reason() + " (and " + (errors.size() - 1) + " more in errors)";
    return new ApiException(400, "invalid_input", detail, first.field(), first.reason(), errors.size() > 1 ? errors : null,
        null);
  }

  static ApiException malformed(String detail) {
    return new ApiException(400, "malformed_json", detail, null, null, null, null);
  }

  static ApiException notFound(String detail) {
    return new ApiException(404, "not_found", detail, null, null, null, null);
  }

  static ApiException conflict(String error, String detail) {
    return new ApiException(409, error, detail, null, null, null, null);
  }

  static ApiException tooLarge(String detail) {
    return new ApiException(413, "too_large", detail, null, null, null, null);
  }

  static ApiException unsupportedMediaType(String detail) {
    return new ApiException(415, "unsupported_media_type", detail, null, null, null, null);
  }

  static ApiException forbidden(String detail) {
    return new ApiException(403, "forbidden", detail, null, null, null, null);
  }

  static ApiException unavailable(String error, String detail, Duration retryAfter) {
    return new ApiException(503, error, detail, null, null, null, retryAfter);
  }

  /** 429: a tenant's quota is used up; nothing was written. */
  static ApiException tooMany(String detail, Duration retryAfter) {
    return new ApiException(429, "quota_exceeded", detail, null, null, null, retryAfter);
  }

  static ApiException of(int status, String error, String detail) {
    return new ApiException(status, error, detail, null, null, null, null);
  }

  int status() {
    return status;
  }

  String error() {
    return error;
  }

  String field() {
    return field;
  }

  String reason() {
    return reason;
  }

  List<FieldError> errors() {
    return errors;
  }

  Duration retryAfter() {
    return retryAfter;
  }
}
