package io.geneid.spring.boot.json;

import static org.assertj.core.api.Assertions.assertThat;

import io.geneid.core.GeneIdGenerator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.ThreadLocalRandom;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code gene-id.json.ids-as-strings} through a real HTTP round trip on an embedded server, with the Jackson of the
 * Spring Boot line the test runs on (Jackson 2 on Boot 3, Jackson 3 on Boot 4: the Boot 4 starter runs this class
 * too): id properties go out as strings and come back in as the same longs; other numbers stay numbers.
 */
class JsonIdsHttpTest {

  /** An order as an API shows it: two ids and a plain number. */
  public record Order(long id, @Nullable Long customerId, long quantity) {}

  /** Issues an order id and echoes what it is sent. */
  @RestController
  public static class Orders {
    private final GeneIdGenerator ids;

    Orders(GeneIdGenerator ids) {
      this.ids = ids;
    }

    @GetMapping("/order")
    public Order order() {
      long id = ids.nextId();
      return new Order(id, ids.nextIdFor(id), 3);
    }

    @PostMapping("/order")
    public Order echo(@RequestBody Order order) {
      return order;
    }
  }

  /** The application: Spring MVC, gene-id and the controller. */
  @SpringBootApplication(excludeName = {
      "org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
      "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
      "com.baomidou.mybatisplus.autoconfigure.MybatisPlusAutoConfiguration"})
  @Import(Orders.class) // scanning skips classes nested in a test class
  public static class App {}

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void idsGoOutAsStringsAndComeBackAsTheSameLongs() throws Exception {
    try (ConfigurableApplicationContext app = start(true)) {
      String port = app.getEnvironment().getProperty("local.server.port");
      String json = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/order")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(json).matches("\\{\"id\":\"\\d{16,19}\",\"customerId\":\"\\d{16,19}\",\"quantity\":3}");
      long id = Long.parseLong(json.replaceAll(".*\"id\":\"(\\d+)\".*", "$1"));
      assertThat(id).as("an id a JavaScript number cannot hold exactly").isGreaterThan(1L << 53);
      String echoed = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/order"))
              .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(json)).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(echoed).as("strings read back into the same longs").isEqualTo(json);
      String fromNumbers = json.replaceAll("\"(\\d+)\"", "$1");
      assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/order"))
              .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(fromNumbers))
              .build(), HttpResponse.BodyHandlers.ofString()).body())
          .as("numbers are still read").isEqualTo(json);
    }
  }

  @Test
  void offByDefault() throws Exception {
    try (ConfigurableApplicationContext app = start(false)) {
      String port = app.getEnvironment().getProperty("local.server.port");
      String json = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/order")).build(),
          HttpResponse.BodyHandlers.ofString()).body();
      assertThat(json).matches("\\{\"id\":\\d{16,19},\"customerId\":\\d{16,19},\"quantity\":3}");
    }
  }

  private static ConfigurableApplicationContext start(boolean idsAsStrings) {
    return new SpringApplicationBuilder(App.class).run("--server.port=0", "--server.address=127.0.0.1",
        // an epoch of its own: no other test of this JVM shares its generator (or its counts)
        "--gene-id.epoch=2025-03-01T00:00:00Z", "--gene-id.worker-id=" + ThreadLocalRandom.current().nextInt(256),
        "--gene-id.sharding-check=false", "--spring.main.banner-mode=off",
        idsAsStrings ? "--gene-id.json.ids-as-strings=true" : "--gene-id.json.ids-as-strings=false");
  }
}
