package io.geneid.spring.boot;

import java.util.List;

/**
 * What differs between the Spring Boot lines the starters' shared tests run on: the Boot 4 starter compiles and runs
 * these tests too, where Boot 4 moved a class they name.
 */
public final class BootLine {

  private BootLine() {}

  /** Whether these tests run on Spring Boot 4 (its health API is in spring-boot-health). */
  public static boolean isBoot4() {
    try {
      Class.forName("org.springframework.boot.health.contributor.HealthIndicator", false,
          BootLine.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException e) {
      return false;
    }
  }

  /** Spring Boot's DataSource auto-configuration: Boot 3's, or Boot 4's in spring-boot-jdbc. */
  public static Class<?> dataSourceAutoConfiguration() {
    return first("org.springframework.boot.autoconfigure.jdbc.DataSourceAutoConfiguration",
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration");
  }

  private static Class<?> first(String... names) {
    for (String name : names) {
      try {
        return Class.forName(name, false, BootLine.class.getClassLoader());
      } catch (ClassNotFoundException e) {
        // the other Boot line
      }
    }
    throw new IllegalStateException("none of " + List.of(names) + " is on the class path");
  }
}
