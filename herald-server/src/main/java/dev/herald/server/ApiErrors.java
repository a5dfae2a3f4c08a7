package dev.herald.server;

import dev.herald.BackPressureException;
import dev.herald.IllegalTransitionException;
import dev.herald.InvalidInputException;
import dev.herald.NoticeNotFoundException;
import dev.herald.StoreException;
import jakarta.servlet.http.HttpServletRequest;
import java.time.Duration;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.NoHandlerFoundException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import tools.jackson.databind.node.ObjectNode;

/** Turns every failure into a problem response (see {@link Problems}); unexpected ones are logged at warn. */
@RestControllerAdvice
class ApiErrors {
  private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);

  private final ServerProperties properties;

  ApiErrors(ServerProperties properties) {
    this.properties = properties;
  }

  @ExceptionHandler(ApiException.class)
  ResponseEntity<ObjectNode> api(ApiException e, HttpServletRequest request) {
    return problem(e, request);
  }

  @ExceptionHandler(InvalidInputException.class)
  ResponseEntity<ObjectNode> invalid(InvalidInputException e, HttpServletRequest request) {
    return problem(ApiException.invalid(e.field(), e.reason()), request);
  }

  @ExceptionHandler(NoticeNotFoundException.class)
  ResponseEntity<ObjectNode> notFound(NoticeNotFoundException e, HttpServletRequest request) {
    return problem(ApiException.notFound(e.getMessage()), request);
  }

  @ExceptionHandler(IllegalTransitionException.class)
  ResponseEntity<ObjectNode> transition(IllegalTransitionException e, HttpServletRequest request) {
    return problem(ApiException.conflict("illegal_transition", e.getMessage()), request);
  }

  @ExceptionHandler(BackPressureException.class)
  ResponseEntity<ObjectNode> backPressure(BackPressureException e, HttpServletRequest request) {
    return problem(ApiException.unavailable("back_pressure", e.getMessage(), properties.getRetryAfter()), request);
  }

  @ExceptionHandler({StoreException.class, ApiTokens.StoreUnavailable.class})
  ResponseEntity<ObjectNode> store(RuntimeException e, HttpServletRequest request) {
    log.warn("{} {}: the database failed: {}", request.getMethod(), request.getRequestURI(), e.getMessage());
    return problem(ApiException.unavailable("unavailable", "the database does not answer; nothing was changed"
        + " by this request, try again later", properties.getRetryAfter()), request);
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  ResponseEntity<ObjectNode> method(HttpRequestMethodNotSupportedException e, HttpServletRequest request) {
    String allowed = e.getSupportedHttpMethods() == null ? "" : e.getSupportedHttpMethods().stream()
        .map(Object::toString).sorted().collect(Collectors.joining(", "));
    ResponseEntity<ObjectNode> r = problem(ApiException.of(405, "method_not_allowed",
        request.getMethod() + " is not allowed on " + request.getRequestURI() + "; allowed: " + allowed), request);
    return ResponseEntity.status(405).headers(r.getHeaders()).header(HttpHeaders.ALLOW, allowed).body(r.getBody());
  }

  @ExceptionHandler({NoResourceFoundException.class, NoHandlerFoundException.class})
  ResponseEntity<ObjectNode> noRoute(Exception e, HttpServletRequest request) {
    return problem(ApiException.notFound("no route " + request.getMethod() + " " + request.getRequestURI()
        + "; see /api/v1/openapi.json"), request);
  }

  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  ResponseEntity<ObjectNode> mediaType(HttpMediaTypeNotSupportedException e, HttpServletRequest request) {
    return problem(ApiException.unsupportedMediaType("send the body as JSON with Content-Type: application/json"),
        request);
  }

  @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
  ResponseEntity<ObjectNode> notAcceptable(HttpMediaTypeNotAcceptableException e, HttpServletRequest request) {
    return problem(ApiException.of(406, "not_acceptable", "this API answers application/json"), request);
  }

  @ExceptionHandler(MissingServletRequestParameterException.class)
  ResponseEntity<ObjectNode> missing(MissingServletRequestParameterException e, HttpServletRequest request) {
    return problem(ApiException.invalid(e.getParameterName(), "is required"), request);
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  ResponseEntity<ObjectNode> mismatch(MethodArgumentTypeMismatchException e, HttpServletRequest request) {
    return problem(ApiException.invalid(e.getName(), "cannot read '" + e.getValue() + "'"), request);
  }

  @ExceptionHandler(Exception.class)
  ResponseEntity<ObjectNode> unexpected(Exception e, HttpServletRequest request) {
    log.warn("{} {} failed unexpectedly", request.getMethod(), request.getRequestURI(), e);
    return problem(ApiException.of(500, "internal", "the server failed: " + e.getClass().getSimpleName()
        + "; see its log"), request);
  }

  static ResponseEntity<ObjectNode> problem(ApiException e, HttpServletRequest request) {
    request.setAttribute(Problems.DETAIL_ATTRIBUTE, e.getMessage());
    ResponseEntity.BodyBuilder b = ResponseEntity.status(e.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
    Duration retryAfter = e.retryAfter();
    if (retryAfter != null) {
      b.header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, retryAfter.toSeconds())));
    }
    return b.body(Problems.body(e, request.getRequestURI()));
  }
}
