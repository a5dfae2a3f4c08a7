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
  Object api(ApiException e, HttpServletRequest request) {
    return problem(e, request);
  }

  @ExceptionHandler(InvalidInputException.class)
  Object invalid(InvalidInputException e, HttpServletRequest request) {
    return problem(ApiException.invalid(e.field(), e.reason()), request);
  }

  @ExceptionHandler(NoticeNotFoundException.class)
  Object notFound(NoticeNotFoundException e, HttpServletRequest request) {
    return problem(ApiException.notFound(e.getMessage()), request);
  }

  @ExceptionHandler(IllegalTransitionException.class)
  Object transition(IllegalTransitionException e, HttpServletRequest request) {
    return problem(ApiException.conflict("illegal_transition", e.getMessage()), request);
  }

  @ExceptionHandler(BackPressureException.class)
  Object backPressure(BackPressureException e, HttpServletRequest request) {
    return problem(ApiException.unavailable("back_pressure", e.getMessage(), properties.getRetryAfter()), request);
  }

  @ExceptionHandler({StoreException.class, ApiTokens.StoreUnavailable.class})
  Object store(RuntimeException e, HttpServletRequest request) {
    log.warn("{} {}: the database failed: {}", request.getMethod(), request.getRequestURI(), e.getMessage());
    return problem(ApiException.unavailable("unavailable", "the database does not answer; nothing was changed"
        + " by this request, try again later", properties.getRetryAfter()), request);
  }

  @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
  Object method(HttpRequestMethodNotSupportedException e, HttpServletRequest request) {
    String allowed = e.getSupportedHttpMethods() == null ? "" : e.getSupportedHttpMethods().stream()
        .map(Object::toString).sorted().collect(Collectors.joining(", "));
    Object r = problem(ApiException.of(405, "method_not_allowed",
        request.getMethod() + " is not allowed on " + request.getRequestURI() + "; allowed: " + allowed), request);
    if (r instanceof ResponseEntity<?> json) {
      return ResponseEntity.status(405).headers(json.getHeaders()).header(HttpHeaders.ALLOW, allowed)
          .body(json.getBody());
    }
    return r;
  }

  @ExceptionHandler({NoResourceFoundException.class, NoHandlerFoundException.class})
  Object noRoute(Exception e, HttpServletRequest request) {
    return problem(ApiException.notFound("no route " + request.getMethod() + " " + request.getRequestURI()
        + "; see /api/v1/openapi.json"), request);
  }

  @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
  Object mediaType(HttpMediaTypeNotSupportedException e, HttpServletRequest request) {
    return problem(ApiException.unsupportedMediaType("send the body as JSON with Content-Type: application/json"),
        request);
  }

  @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
  Object notAcceptable(HttpMediaTypeNotAcceptableException e, HttpServletRequest request) {
    return problem(ApiException.of(406, "not_acceptable", "this API answers application/json"), request);
  }

  @ExceptionHandler(MissingServletRequestParameterException.class)
  Object missing(MissingServletRequestParameterException e, HttpServletRequest request) {
    return problem(ApiException.invalid(e.getParameterName(), "is required"), request);
  }

  @ExceptionHandler(MethodArgumentTypeMismatchException.class)
  Object mismatch(MethodArgumentTypeMismatchException e, HttpServletRequest request) {
    return problem(ApiException.invalid(e.getName(), "cannot read '" + e.getValue() + "'"), request);
  }

  @ExceptionHandler(org.springframework.validation.BindException.class)
  Object binding(org.springframework.validation.BindException e, HttpServletRequest request) {
    org.springframework.validation.FieldError f = e.getFieldError();
    return f == null ? problem(ApiException.of(400, "invalid_input", "the request's parameters cannot be read"), request)
        : problem(ApiException.invalid(f.getField(), "cannot read '" + f.getRejectedValue() + "'"), request);
  }

  @ExceptionHandler(Exception.class)
  Object unexpected(Exception e, HttpServletRequest request) {
    log.warn("{} {} failed unexpectedly", request.getMethod(), request.getRequestURI(), e);
    return problem(ApiException.of(500, "internal", "the server failed: " + e.getClass().getSimpleName()
        + "; see its log"), request);
  }

  /**
   * The problem as the caller reads it: JSON for the API, an HTML page for the console (whose users
   * are people in a browser).
   */
  static Object problem(ApiException e, HttpServletRequest request) {
    request.setAttribute(Problems.DETAIL_ATTRIBUTE, e.getMessage());
    if (request.getRequestURI().startsWith("/console")) {
      org.springframework.web.servlet.ModelAndView page = new org.springframework.web.servlet.ModelAndView(
          "console/error", org.springframework.http.HttpStatusCode.valueOf(e.status()));
      org.springframework.http.HttpStatus status = org.springframework.http.HttpStatus.resolve(e.status());
      page.addObject("status", e.status());
      page.addObject("title", status == null ? "Error" : status.getReasonPhrase());
      page.addObject("detail", e.getMessage());
      return page;
    }
    ResponseEntity.BodyBuilder b = ResponseEntity.status(e.status()).contentType(MediaType.APPLICATION_PROBLEM_JSON);
    Duration retryAfter = e.retryAfter();
    if (retryAfter != null) {
      b.header(HttpHeaders.RETRY_AFTER, Long.toString(Math.max(1, retryAfter.toSeconds())));
    }
    return b.body(Problems.body(e, request.getRequestURI()));
  }
}
