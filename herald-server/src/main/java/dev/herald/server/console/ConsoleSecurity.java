package dev.herald.server.console;

import dev.herald.server.Access;
import dev.herald.server.AuditLog;
import dev.herald.server.Caller;
import dev.herald.server.Permission;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.http.HttpStatus;
import org.springframework.security.authorization.AuthorizationDecision;
import org.springframework.security.authorization.AuthorizationManager;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.core.Authentication;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.SecurityFilterChain;
import org.springframework.security.web.access.intercept.RequestAuthorizationContext;
import org.springframework.security.web.authentication.HttpStatusEntryPoint;
import org.springframework.security.web.authentication.UsernamePasswordAuthenticationFilter;
import org.springframework.security.web.authentication.logout.HeaderWriterLogoutHandler;
import org.springframework.security.web.context.SecurityContextHolderFilter;
import org.springframework.security.web.header.writers.ClearSiteDataHeaderWriter;
import org.springframework.security.web.header.writers.ReferrerPolicyHeaderWriter;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Who may use the console. The console has its own chain: form login against {@link ConsoleUsers}
 * (throttled per user and address, failures logged and audited), a session (expiring after {@code
 * server.servlet.session.timeout}, ended at once when the user's rights change: {@link SessionCheck}),
 * CSRF tokens on every form, a strict Content-Security-Policy, and on every request the {@link
 * Permission} its path needs, checked by {@link Access} (the API's policy too), whatever the page
 * showed. The actuator's endpoints other than health and prometheus need {@link
 * Permission#INSPECT_SERVER} (a console admin of every tenant). Everything else (the API, which checks
 * its own tokens) goes through a chain that adds no session and no login.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleSecurity {
  private static final Logger log = LoggerFactory.getLogger("dev.herald.server.console.login");
  /** Scripts, styles, images and connections from this server only; no inline script, no framing. */
  static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:;"
      + " connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self';"
      + " frame-ancestors 'none'";

  @Bean
  PasswordEncoder consolePasswordEncoder() {
    return new BCryptPasswordEncoder();
  }

  @Bean
  ConsoleUsers consoleUsers(DataSource dataSource, PasswordEncoder encoder,
      dev.herald.server.ApiTokens migratedFirst) {
    return new ConsoleUsers(dataSource, encoder, Clock.systemUTC());
  }

  @Bean
  ConsoleBootstrap consoleBootstrap(ConsoleUsers users,
      @Value("${herald.server.console.admin-password:}") String adminPassword,
      dev.herald.server.FirstStartSecrets firstStart) {
    return new ConsoleBootstrap(users, adminPassword, firstStart);
  }

  @Bean
  LoginThrottle loginThrottle(@Value("${herald.server.console.login-delay:250ms}") Duration delay,
      @Value("${herald.server.console.login-max-delay:4s}") Duration maxDelay,
      @Value("${herald.server.console.login-lock-after:10}") int lockAfter,
      @Value("${herald.server.console.login-window:15m}") Duration window) {
    return new LoginThrottle(Clock.systemUTC(), delay, maxDelay, lockAfter, window);
  }

  @Bean
  @Order(1)
  SecurityFilterChain consoleChain(HttpSecurity http, ConsoleUsers users, LoginThrottle throttle, AuditLog audit)
      throws Exception {
    http.securityMatcher("/console/**")
        .userDetailsService(users)
        .authorizeHttpRequests(a -> a
            .requestMatchers("/console/login", "/console/assets/**").permitAll()
            .requestMatchers("/console/denied").authenticated() // the 403 page, forwarded to for any method
            .requestMatchers("/console/admin/users/**").access(needs(Permission.MANAGE_USERS))
            .requestMatchers("/console/admin/tenants/**").access(needs(Permission.MANAGE_TENANTS))
            .requestMatchers("/console/admin/tokens/**").access(needs(Permission.MANAGE_TOKENS))
            .requestMatchers("/console/admin/audit/**").access(needs(Permission.READ_AUDIT))
            .requestMatchers("/console/admin/**").denyAll() // a page added here says above what it needs
            .requestMatchers(HttpMethod.POST, "/console/definitions/**").access(needs(Permission.MANAGE_DEFINITIONS))
            .requestMatchers(HttpMethod.POST, "/console/endpoints/**").access(needs(Permission.MANAGE_ENDPOINTS))
            .requestMatchers(HttpMethod.POST, "/console/event-endpoints/**")
                .access(needs(Permission.MANAGE_DEFINITIONS)) // a tenant's own
            .requestMatchers(HttpMethod.POST, "/console/notices/**").access(needs(Permission.ACT_ON_NOTICES))
            .requestMatchers(HttpMethod.POST, "/console/recurring/**").access(needs(Permission.ACT_ON_SCHEDULES))
            .requestMatchers(HttpMethod.POST, "/console/logout", "/console/account/**").authenticated()
            .requestMatchers(HttpMethod.POST, "/console/**").denyAll() // as above: a change says what it needs
            .anyRequest().access(needs(Permission.READ)))
        .formLogin(f -> f.loginPage("/console/login").loginProcessingUrl("/console/login")
            .successHandler((request, response, auth) -> {
              throttle.succeeded(auth.getName());
              audit.record(new Caller("user " + auth.getName(), null, Set.of(), request.getRemoteAddr()),
                  tenantOf(auth), "console.login", auth.getName(), null);
              response.sendRedirect("/console");
            })
            .failureHandler((request, response, e) -> {
              String user = request.getParameter("username");
              int n = throttle.failed(user, request.getRemoteAddr());
              log.warn("console login failed: user '{}' from {} ({} failure(s) within the window; {})",
                  abbreviate(user), request.getRemoteAddr(), n, e.getMessage());
              audit.record(new Caller("login as " + abbreviate(user), null, Set.of(), request.getRemoteAddr()), null,
                  "console.login-failed", abbreviate(user), n + " failure(s) of this user within the window");
              response.sendRedirect("/console/login?error");
            })
            .permitAll())
        .logout(l -> l.logoutUrl("/console/logout").logoutSuccessUrl("/console/login?logout")
            // nothing of the console stays in the browser: htmx's history, caches, storage
            .addLogoutHandler(new HeaderWriterLogoutHandler(new ClearSiteDataHeaderWriter(
                ClearSiteDataHeaderWriter.Directive.CACHE, ClearSiteDataHeaderWriter.Directive.STORAGE))))
        .headers(h -> h
            .contentSecurityPolicy(c -> c.policyDirectives(CSP))
            .referrerPolicy(r -> r.policy(ReferrerPolicyHeaderWriter.ReferrerPolicy.NO_REFERRER)))
        .addFilterBefore(new ThrottleFilter(throttle), UsernamePasswordAuthenticationFilter.class)
        .addFilterAfter(new SessionCheck(users), SecurityContextHolderFilter.class)
        .exceptionHandling(e -> e.accessDeniedPage("/console/denied"));
    return http.build();
  }

  /**
   * The actuator: health and prometheus open (probes, scrapers); every other endpoint (herald's, env,
   * loggers... when exposed) needs the session of a console admin of every tenant.
   */
  @Bean
  @Order(2)
  SecurityFilterChain actuatorChain(HttpSecurity http, ConsoleUsers users) throws Exception {
    http.securityMatcher("/actuator/**")
        .authorizeHttpRequests(a -> a
            .requestMatchers("/actuator/health", "/actuator/health/**", "/actuator/prometheus").permitAll()
            .anyRequest().access(needs(Permission.INSPECT_SERVER)))
        .csrf(c -> c.ignoringRequestMatchers("/actuator/health", "/actuator/health/**", "/actuator/prometheus"))
        .requestCache(AbstractHttpConfigurer::disable)
        .addFilterAfter(new SessionCheck(users), SecurityContextHolderFilter.class)
        .exceptionHandling(e -> e.authenticationEntryPoint(new HttpStatusEntryPoint(HttpStatus.UNAUTHORIZED)));
    return http.build();
  }

  /** The API: no login, no session, no CSRF (the API authenticates each call by token). */
  @Bean
  @Order(3)
  SecurityFilterChain everythingElse(HttpSecurity http) throws Exception {
    http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .csrf(AbstractHttpConfigurer::disable)
        .requestCache(AbstractHttpConfigurer::disable)
        .securityContext(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS))
        .headers(h -> h.referrerPolicy(r -> r.policy(ReferrerPolicyHeaderWriter.ReferrerPolicy.NO_REFERRER)));
    return http.build();
  }

  /** Lets in a console user who may, as {@link Access} says (the API asks it too). */
  static AuthorizationManager<RequestAuthorizationContext> needs(Permission permission) {
    return (auth, ctx) -> new AuthorizationDecision(Access.may(ConsoleModel.caller(auth.get(), (String) null),
        permission));
  }

  static String tenantOf(Authentication auth) {
    return auth != null && auth.getPrincipal() instanceof ConsoleUser u ? u.tenant() : null;
  }

  private static String abbreviate(String s) {
    if (s == null) {
      return "";
    }
    String clean = s.replaceAll("\\p{Cntrl}", "?");
    return clean.length() <= 100 ? clean : clean.substring(0, 100) + "...";
  }

  /** Delays or refuses a login attempt as {@link LoginThrottle} says, before the password is checked. */
  static final class ThrottleFilter extends OncePerRequestFilter {
    private final LoginThrottle throttle;

    ThrottleFilter(LoginThrottle throttle) {
      this.throttle = throttle;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
      return !(request.getMethod().equals("POST") && request.getRequestURI().equals("/console/login"));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
        throws ServletException, IOException {
      LoginThrottle.Decision d = throttle.check(request.getParameter("username"), request.getRemoteAddr());
      if (d.refused()) {
        long seconds = Math.max(1, (d.retryAfter().toMillis() + 999) / 1000);
        log.warn("console login refused: user '{}' from {} is locked out for {} s after too many failures",
            abbreviate(request.getParameter("username")), request.getRemoteAddr(), seconds);
        response.setStatus(429);
        response.setHeader("Retry-After", Long.toString(seconds));
        response.setContentType("text/html;charset=UTF-8");
        response.getWriter().write("<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>Too many attempts"
            + " · Herald console</title><link rel=\"stylesheet\" href=\"/console/assets/console.css\"></head>"
            + "<body class=\"login\"><main class=\"card narrow\"><h1>Too many failed logins</h1><p class=\"flash"
            + " error\" id=\"error\">Logins of this user or from this address are refused for " + seconds
            + " seconds after too many failures.</p><p><a href=\"/console/login\">Back to the login</a></p></main>"
            + "</body></html>");
        return;
      }
      if (!d.delay().isZero()) {
        try {
          Thread.sleep(d.delay()); // a virtual thread: waiting costs no platform thread
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      chain.doFilter(request, response);
    }
  }
}
