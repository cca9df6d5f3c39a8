package io.geneid.core.testing;

import java.text.MessageFormat;
import java.util.List;
import java.util.ResourceBundle;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

/**
 * Test {@link System.LoggerFinder} (registered in META-INF/services): keeps every record so tests can assert what
 * core logs through {@link System.Logger}, and prints it to stderr.
 */
public final class CapturingLoggerFinder extends System.LoggerFinder {

  /** One log record. */
  public record Entry(String logger, System.Logger.Level level, String message) {}

  public static final List<Entry> RECORDS = new CopyOnWriteArrayList<>();

  @Override
  public System.Logger getLogger(String name, Module module) {
    return new Capturing(name);
  }

  /** Records of {@code logger}. */
  public static List<Entry> of(String logger) {
    return RECORDS.stream().filter(e -> e.logger().equals(logger)).toList();
  }

  public static class Capturing implements System.Logger {
    private final String name;

    public Capturing(String name) {
      this.name = name;
    }

    @Override
    public String getName() {
      return name;
    }

    @Override
    public boolean isLoggable(Level level) {
      return level.getSeverity() >= Level.INFO.getSeverity();
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String msg, Throwable thrown) {
      record(level, msg);
    }

    @Override
    public void log(Level level, ResourceBundle bundle, String format, Object... params) {
      record(level, params == null || params.length == 0 ? format : MessageFormat.format(format, params));
    }

    @Override
    public void log(Level level, Supplier<String> msgSupplier) {
      record(level, msgSupplier.get());
    }

    private void record(Level level, String message) {
      if (!isLoggable(level)) {
        return;
      }
      RECORDS.add(new Entry(name, level, message));
      if (!message.startsWith("the timestamp field of")) { // capacity warnings: expected for the short test layouts
        System.err.println(level + " " + name + ": " + message);
      }
    }
  }
}
