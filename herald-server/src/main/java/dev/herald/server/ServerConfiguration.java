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

  /** Herald closes its channels when it stops, so the context does not. */
  @Bean(destroyMethod = "")
  HttpChannel httpChannel(HttpChannelProperties p, EndpointSettings settings) {
    HttpChannel http = HttpChannel.builder()
        .allowPrivateNetworks(p.isAllowPrivateNetworks())
        .allow(p.getAllow().stream().map(String::strip).filter(s -> !s.isEmpty()).toArray(String[]::new))
        .connectTimeout(p.getConnectTimeout())
        .defaultTimeout(p.getDefaultTimeout())
        .maxConcurrencyPerEndpoint(p.getMaxConcurrencyPerEndpoint())
        .circuitFailureThreshold(p.getCircuitFailureThreshold())
        .circuitOpenFor(p.getCircuitOpenFor())
        .maxRatePerEndpoint(p.getMaxRatePerEndpoint())
        .disableAfter(p.getDisableAfter())
        .disabledRecheck(p.getDisabledRecheck())
        .endpointListener(new EndpointAlerts(settings))
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
