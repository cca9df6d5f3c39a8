package io.geneid.shardingsphere;

import io.geneid.core.settings.SettingsReader;
import java.util.Collection;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/** The properties of one algorithm, read by the core's {@link SettingsReader} and named as ShardingSphere users write them. */
final class AlgorithmProps {

  private AlgorithmProps() {}

  /**
   * A reader of {@code props} whose messages name each property as {@code <type> property '<name>'}.
   *
   * @throws IllegalArgumentException {@code "<type> has no property '<name>'; allowed: ..."} for a name not in
   *     {@code allowed}
   */
  static SettingsReader of(String type, @Nullable Properties props, Collection<String> allowed) {
    return SettingsReader.of(props == null ? new Properties() : props).requireKnown(allowed, type).ownedBy(type);
  }

  /**
   * {@code settings} once {@code init(Properties)} has set them.
   *
   * @throws IllegalStateException naming the algorithm type when it has not
   */
  static <T> T initialised(String type, @Nullable T settings) {
    if (settings == null) {
      throw new IllegalStateException(type + " was used before init(Properties)");
    }
    return settings;
  }
}
