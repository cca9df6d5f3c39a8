package io.geneid.spring.boot.actuate;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.testing.TestTime;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.geneid.core.snowflake.LeasedGeneGenerator;
import io.geneid.core.testing.Await;
import io.geneid.core.testing.TcpProxy;
import io.geneid.redis.RedisWorkerIdAssigner;
import io.geneid.redis.TestRedis;
import io.geneid.spring.boot.GeneIdAutoConfiguration;
import io.geneid.spring.boot3.actuate.GeneIdHealthAutoConfiguration;
import io.geneid.spring.boot3.actuate.GeneIdHealthIndicator;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.actuate.autoconfigure.health.HealthContributorAutoConfiguration;
import org.springframework.boot.actuate.health.Health;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The {@code geneid} health of a generator whose Redis lease store vanishes (the Redis on 127.0.0.1:6379). */
class GeneIdHealthLeaseLostTest {

  private final ApplicationContextRunner runner = new ApplicationContextRunner()
      .withConfiguration(AutoConfigurations.of(GeneIdAutoConfiguration.class, GeneIdActuatorAutoConfiguration.class,
          GeneIdHealthAutoConfiguration.class, EndpointAutoConfiguration.class, HealthContributorAutoConfiguration.class));

  /** A leased generator over the shared Redis, reached through a proxy the test kills. */
  @Configuration(proxyBeanMethods = false)
  static class RedisLease {
    @Bean(destroyMethod = "close")
    LeasedGeneGenerator leasedGenerator(org.springframework.core.env.Environment env) {
      return LeasedGeneGenerator.builder().assigner(RedisWorkerIdAssigner.builder()
          .redisUri(env.getRequiredProperty("test.redis-uri")).keyPrefix(env.getRequiredProperty("test.prefix"))
          .space(env.getRequiredProperty("test.space")).workerIds(0, 3).ttl(TestTime.ofMillis(900)) // UP until cut
          .acquireTimeout(TestTime.seconds(5)).build()).build();
    }
  }

  @Test
  void aLeaseWhoseStoreVanishesGoesDownWithTheRenewalError() throws Exception {
    try (TestRedis redis = new TestRedis("starter_actuate"); TcpProxy proxy = new TcpProxy("127.0.0.1", 6379)) {
      String space = redis.agedSpace();
      runner.withUserConfiguration(RedisLease.class)
          .withPropertyValues("test.redis-uri=redis://127.0.0.1:" + proxy.port(), "test.prefix=" + redis.prefix,
              "test.space=" + space)
          .run(context -> {
            GeneIdHealthIndicator indicator = context.getBean(GeneIdHealthIndicator.class);
            LeasedGeneGenerator generator = context.getBean(LeasedGeneGenerator.class);
            assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);
            long worker = generator.workerId();

            proxy.stop();
            Await.until(() -> indicator.health().getStatus().equals(Status.DOWN), Duration.ofSeconds(15),
                "health DOWN");
            Await.until(() -> !generator.isIssuing(), Duration.ofSeconds(15), "the lease to lapse");
            Health down = indicator.health();
            Map<String, Object> d = details(down, "leasedGenerator");
            assertThat(down.getStatus()).isEqualTo(Status.DOWN);
            assertThat(d).containsEntry("status", "DOWN").containsEntry("issuing", false)
                .containsEntry("workerId", worker).containsEntry("space", space)
                .containsEntry("leaseRemaining", "0 ms").containsEntry("fencings", 1L)
                .containsEntry("reason", "the worker-id lease is lost: no ids are issued until a worker id is leased"
                    + " again");
            assertThat((String) d.get("lastRenewalError")).isNotBlank();
            assertThat((Long) d.get("renewalFailures")).isPositive();
            System.out.println("GET /actuator/health/geneid, lease store gone:\n"
                + new ObjectMapper().writerWithDefaultPrettyPrinter().writeValueAsString(down));
          });
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> details(Health health, String bean) {
    return (Map<String, Object>) health.getDetails().get(bean);
  }
}
