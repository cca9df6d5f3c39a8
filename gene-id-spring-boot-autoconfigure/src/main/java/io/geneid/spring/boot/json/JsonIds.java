package io.geneid.spring.boot.json;

/**
 * Which JSON properties {@code gene-id.json.ids-as-strings} writes as strings: those of type {@code long} or
 * {@code Long} named {@code id} or ending in {@code Id} or {@code _id} ({@code orderId}, {@code order_id}). Other
 * numbers stay numbers. Shared by the Jackson 2 (Spring Boot 3) and Jackson 3 (Spring Boot 4) modules; reading
 * needs nothing: Jackson reads a string into a {@code long} field by default.
 */
public final class JsonIds {

  private JsonIds() {}

  /** Whether a property of this JSON name and declared type is an id. */
  public static boolean isId(String name, Class<?> type) {
    boolean idName = name.equals("id") || name.endsWith("Id") || name.endsWith("_id");
    return idName && (type == long.class || type == Long.class);
  }
}
