package dev.herald.server;

import dev.herald.Herald;
import dev.herald.channel.http.HttpChannel;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.boot.web.servlet.FilterRegistrationBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.Ordered;
import org.springframework.web.servlet.config.annotation.InterceptorRegistry;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/** The server's beans: the webhook channel (picked up by the starter), tokens, the filter and role check. */
@Configuration(proxyBeanMethods = false)
class ServerConfiguration implements WebMvcConfigurer {
  /** The HTTP channel's circuit threshold in demo mode, unless set. */
  static final int DEMO_CIRCUIT_FAILURE_THRESHOLD = 50;

  /** Herald closes its channels when it stops, so the context does not. */
  @Bean(destroyMethod = "")
  HttpChannel httpChannel(HttpChannelProperties p, EndpointSettings settings, ServerProperties server,
      org.springframework.core.env.Environment environment, EndpointSecrets secrets) {
    java.util.List<String> allow = new java.util.ArrayList<>(p.getAllow().stream().map(String::strip)
        .filter(s -> !s.isEmpty()).toList());
    int circuitThreshold = p.getCircuitFailureThreshold();
    if (server.isDemo()) {
      allow.add("127.0.0.1"); // the demo's receiver is this server itself
      if (!environment.containsProperty("herald.http.circuit-failure-threshold")) {
        // its three receivers share one origin: a few failures in a row must not pause them all
        circuitThreshold = DEMO_CIRCUIT_FAILURE_THRESHOLD;
      }
    }
    HttpChannel http = HttpChannel.builder()
        .allowPrivateNetworks(p.isAllowPrivateNetworks())
        .allow(allow.toArray(String[]::new))
        .connectTimeout(p.getConnectTimeout())
        .defaultTimeout(p.getDefaultTimeout())
        .maxConcurrencyPerEndpoint(p.getMaxConcurrencyPerEndpoint())
        .circuitFailureThreshold(circuitThreshold)
        .circuitOpenFor(p.getCircuitOpenFor())
        .maxRatePerEndpoint(p.getMaxRatePerEndpoint())
        .disableAfter(p.getDisableAfter())
        .disabledRecheck(p.getDisabledRecheck())
        .endpointListener(new EndpointAlerts(settings))
        .secretOpener(secrets::openOption) // endpoints' credentials are sealed at rest
        .proxy(p.getProxy(), p.getProxyExclude())
        .build();
    EndpointSync.apply(http, settings.all());
    return http;
  }

  /** The endpoint settings table, after the server's tables are migrated. */
  @Bean
  EndpointSettings endpointSettings(DataSource dataSource) {
    ServerSchema.migrate(dataSource, Clock.systemUTC());
    return new EndpointSettings(dataSource, Clock.systemUTC());
  }

  @Bean
  EndpointControl endpointControl(HttpChannel http, EndpointSettings settings) {
    return new EndpointControl(http, settings, Clock.systemUTC());
  }

  @Bean(destroyMethod = "close")
  EndpointSync endpointSync(HttpChannel http, EndpointSettings settings, HttpChannelProperties p) {
    return new EndpointSync(http, settings, p.getEndpointSync());
  }

  /** Tokens, after the server's own tables are migrated. */
  @Bean
  ApiTokens apiTokens(DataSource dataSource) {
    ServerSchema.migrate(dataSource, Clock.systemUTC());
    return new ApiTokens(dataSource, Clock.systemUTC());
  }

  @Bean
  ServerBootstrap serverBootstrap(Herald herald, ApiTokens tokens, ServerProperties properties) {
    return new ServerBootstrap(herald, tokens, properties);
  }

  @Bean
  StartupReport startupReport(ServerBootstrap bootstrap, ApiTokens tokens,
      org.springframework.core.env.Environment environment) {
    return new StartupReport(bootstrap, tokens, environment);
  }

  /** Health contributor {@code heraldEngine}, in the readiness group (application.properties). */
  @Bean
  EngineReadiness heraldEngineHealthIndicator(Herald herald) {
    return new EngineReadiness(herald);
  }

  @Bean
  FilterRegistrationBean<ApiFilter> apiFilter(ApiTokens tokens, ServerProperties properties) {
    FilterRegistrationBean<ApiFilter> r =
        new FilterRegistrationBean<>(new ApiFilter(tokens, JsonInput.MAPPER, properties.getRetryAfter()));
    r.setOrder(Ordered.HIGHEST_PRECEDENCE + 10);
    r.addUrlPatterns("/*");
    return r;
  }

  @Override
  public void addInterceptors(InterceptorRegistry registry) {
    registry.addInterceptor(new RoleInterceptor()).addPathPatterns("/api/**");
  }
}
