package io.geneid.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

  @Test
  void readsTheDocumentedShapes() {
    assertThat(Json.parse(" {\"ids\":[\"9223372036854775807\",\"1\"],\"gene\":11,\"ok\":true,\"n\":null,"
        + "\"x\":-1.5e3,\"s\":\"a\\\"b\\u00e9\\n\"} "))
        .isEqualTo(new java.util.LinkedHashMap<>(Map.of("ids", List.of("9223372036854775807", "1"), "gene", 11L,
            "ok", true, "x", -1500.0, "s", "a\"b\u00e9\n")) {
          {
            put("n", null);
          }
        });
    assertThat(Json.parse("[]")).isEqualTo(List.of());
    assertThat(Json.parse("{}")).isEqualTo(Map.of());
    assertThat(Json.parse("12345678901234567890")).as("beyond a long: a double").isEqualTo(1.2345678901234567e19);
  }

  @Test
  void refusesWhatIsNotJsonNamingTheOffset() {
    assertThatThrownBy(() -> Json.parse("<html>")).hasMessage("not JSON: unexpected character '<' at offset 0");
    assertThatThrownBy(() -> Json.parse("{\"a\":1,}")).hasMessage("not JSON: expected a member name at offset 7");
    assertThatThrownBy(() -> Json.parse("[1 2]")).hasMessage("not JSON: expected ',' or ']' at offset 4");
    assertThatThrownBy(() -> Json.parse("\"abc")).hasMessage("not JSON: unexpected end at offset 4");
    assertThatThrownBy(() -> Json.parse("{} x")).hasMessage("not JSON: unexpected text after the value at offset 3");
  }
}
