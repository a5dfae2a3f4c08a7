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
  /** The server's tables, migrated: beans that read them at start depend on this. */
  record Migrated() {}

  @Bean
  Migrated serverTables(DataSource dataSource) {
    ServerSchema.migrate(dataSource, Clock.systemUTC());
    return new Migrated();
  }

  @Bean
  SecretBox secretBox(ServerProperties p) {
    return new SecretBox(p.getSecretKey(), p.getPreviousSecretKeys());
  }

  @Bean
  DefinitionSecrets definitionSecrets(SecretBox box) {
    return new DefinitionSecrets(box);
  }

  @Bean
  EndpointSecrets endpointSecrets(DefinitionSecrets secrets) {
    return new EndpointSecrets(secrets);
  }

  @Bean
  ConfirmCapability confirmCapability(DataSource dataSource, SecretBox box, ServerProperties p, Migrated migrated) {
    return new ConfirmCapability(dataSource, box, p.getPublicUrl());
  }

  /** Herald closes its channels when it stops, so the context does not. */
  @Bean(destroyMethod = "")
  ServerHttpChannel httpChannel(HttpChannelProperties p, EndpointSettings settings,
      DefinitionSecrets secrets, ConfirmCapability capability,
      org.springframework.beans.factory.ObjectProvider<WebhookAdjustment> adjustments) {
    java.util.List<String> allow = new java.util.ArrayList<>(p.getAllow().stream().map(String::strip)
        .filter(s -> !s.isEmpty()).toList());
    int circuitThreshold = p.getCircuitFailureThreshold();
    for (WebhookAdjustment a : adjustments.orderedStream().toList()) {
      allow.addAll(a.allow());
      circuitThreshold = a.circuitFailureThreshold().orElse(circuitThreshold);
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
        .extraHeaders(capability::headers)
        .proxy(p.getProxy(), p.getProxyExclude())
        .build();
    EndpointSync.apply(http, settings.all());
    return new ServerHttpChannel(http, secrets);
  }

  /** The endpoint settings table, after the server's tables are migrated. */
  @Bean
  EndpointSettings endpointSettings(DataSource dataSource) {
    ServerSchema.migrate(dataSource, Clock.systemUTC());
    return new EndpointSettings(dataSource, Clock.systemUTC());
  }

  @Bean
  EndpointControl endpointControl(ServerHttpChannel http, EndpointSettings settings) {
    return new EndpointControl(http.http(), settings, Clock.systemUTC());
  }

  @Bean(destroyMethod = "close")
  EndpointSync endpointSync(ServerHttpChannel http, EndpointSettings settings, HttpChannelProperties p) {
    return new EndpointSync(http.http(), settings, p.getEndpointSync());
  }

  @Bean
  AlertTargets alertTargets(ServerHttpChannel http) {
    return new AlertTargets(http.http());
  }

  @Bean
  Tenants tenants(DataSource dataSource, Migrated migrated) {
    return new Tenants(dataSource, Clock.systemUTC());
  }

  @Bean
  NoticeOwners noticeOwners(DataSource dataSource, Migrated migrated) {
    return new NoticeOwners(dataSource, Clock.systemUTC());
  }

  @Bean
  RecurringTenants recurringTenants(Herald herald, NoticeOwners owners) {
    return new RecurringTenants(herald, owners);
  }


  @Bean
  TenantScope tenantScope(Tenants tenants, NoticeOwners owners, ServerProperties p) {
    return new TenantScope(tenants, owners, p);
  }

  @Bean
  TenantNotices tenantNotices(Herald herald) {
    return new TenantNotices(herald.reports());
  }

  @Bean
  TenantQuotas tenantQuotas(Tenants tenants, Herald herald, ServerProperties p) {
    return new TenantQuotas(tenants, herald.reports(), Clock.systemUTC(), p.getRetryAfter());
  }

  @Bean
  TenantEndpoints tenantEndpoints(DataSource dataSource, Migrated migrated) {
    return new TenantEndpoints(dataSource, Clock.systemUTC());
  }

  @Bean
  AuditLog auditLog(DataSource dataSource, Migrated migrated) {
    return new AuditLog(dataSource, Clock.systemUTC());
  }

  @Bean
  RequestBodies requestBodies(ServerProperties p, Herald herald) {
    return new RequestBodies(p, herald.settings().maxPayloadBytes());
  }

  @Bean(destroyMethod = "close")
  HeaderTimeout headerTimeout(ServerProperties p) {
    return new HeaderTimeout(p.getHeaderTimeout());
  }

  @Bean(destroyMethod = "close")
  ServerHousekeeping serverHousekeeping(NoticeOwners owners, Herald herald) {
    return new ServerHousekeeping(owners, herald.reports());
  }

  /** Tokens, after the server's own tables are migrated. */
  @Bean
  ApiTokens apiTokens(DataSource dataSource) {
    ServerSchema.migrate(dataSource, Clock.systemUTC());
    return new ApiTokens(dataSource, Clock.systemUTC());
  }

  @Bean
  ServerBootstrap serverBootstrap(Herald herald, ApiTokens tokens, ServerProperties properties,
      DefinitionSecrets secrets, FirstStartSecrets firstStart) {
    return new ServerBootstrap(herald, tokens, properties, secrets, firstStart);
  }

  @Bean
  FirstStartSecrets firstStartSecrets(ServerProperties properties) {
    return new FirstStartSecrets(properties.getDataDir());
  }

  @Bean
  StartupReport startupReport(ServerBootstrap bootstrap, ApiTokens tokens,
      org.springframework.core.env.Environment environment, SecretBox box, FirstStartSecrets firstStart) {
    return new StartupReport(bootstrap, tokens, environment, box, firstStart);
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
    registry.addInterceptor(new PermissionInterceptor()).addPathPatterns("/api/**");
  }
}
