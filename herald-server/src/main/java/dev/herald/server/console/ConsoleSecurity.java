package dev.herald.server.console;

import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpMethod;
import org.springframework.security.config.annotation.web.builders.HttpSecurity;
import org.springframework.security.config.annotation.web.configurers.AbstractHttpConfigurer;
import org.springframework.security.config.http.SessionCreationPolicy;
import org.springframework.security.crypto.bcrypt.BCryptPasswordEncoder;
import org.springframework.security.crypto.password.PasswordEncoder;
import org.springframework.security.web.SecurityFilterChain;

/**
 * Who may use the console. The console has its own chain: form login against {@link ConsoleUsers},
 * a session (expiring after {@code server.servlet.session.timeout}), CSRF tokens on every form, and
 * roles checked by the server on every request that changes something, whatever the page showed.
 * Everything else (the API, which checks its own tokens, and the actuator) goes through a chain
 * that adds no session and no login.
 */
@Configuration(proxyBeanMethods = false)
class ConsoleSecurity {

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
      @Value("${herald.server.console.admin-password:}") String adminPassword) {
    return new ConsoleBootstrap(users, adminPassword);
  }

  @Bean
  @Order(1)
  SecurityFilterChain consoleChain(HttpSecurity http, ConsoleUsers users) throws Exception {
    http.securityMatcher("/console/**")
        .userDetailsService(users)
        .authorizeHttpRequests(a -> a
            .requestMatchers("/console/login", "/console/assets/**").permitAll()
            .requestMatchers("/console/denied").authenticated() // the 403 page, forwarded to for any method
            .requestMatchers("/console/admin/**").hasRole("ADMIN")
            .requestMatchers(HttpMethod.POST, "/console/definitions/**").hasRole("ADMIN")
            .requestMatchers(HttpMethod.POST, "/console/endpoints/**").hasRole("ADMIN") // as the API: @AdminOnly
            .requestMatchers(HttpMethod.POST, "/console/event-endpoints/**").hasRole("ADMIN")
            .requestMatchers(HttpMethod.POST, "/console/logout").authenticated()
            .requestMatchers(HttpMethod.POST, "/console/**").hasAnyRole("ADMIN", "OPERATOR")
            .anyRequest().authenticated())
        .formLogin(f -> f.loginPage("/console/login").loginProcessingUrl("/console/login")
            .defaultSuccessUrl("/console", true).failureUrl("/console/login?error").permitAll())
        .logout(l -> l.logoutUrl("/console/logout").logoutSuccessUrl("/console/login?logout"))
        .exceptionHandling(e -> e.accessDeniedPage("/console/denied"));
    return http.build();
  }

  /** The API and the actuator: no login, no session, no CSRF (the API authenticates each call by token). */
  @Bean
  @Order(2)
  SecurityFilterChain everythingElse(HttpSecurity http) throws Exception {
    http.authorizeHttpRequests(a -> a.anyRequest().permitAll())
        .csrf(AbstractHttpConfigurer::disable)
        .requestCache(AbstractHttpConfigurer::disable)
        .securityContext(AbstractHttpConfigurer::disable)
        .sessionManagement(s -> s.sessionCreationPolicy(SessionCreationPolicy.STATELESS));
    return http.build();
  }
}
