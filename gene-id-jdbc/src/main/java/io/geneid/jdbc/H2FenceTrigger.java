package io.geneid.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import org.h2.api.Trigger;
import org.jspecify.annotations.Nullable;

/**
 * The write fence of a move on H2 (see {@code docs/resharding.md}, "The fence"): a row trigger the mover installs on
 * each table of the family and removes after cleanup. It refuses, with SQLState {@code 40001}, an INSERT, UPDATE or
 * DELETE whose old or new key falls in a bucket listed in {@code gene_id_fence} for its map, unless the session is
 * the mover's ({@code @gene_id_mover} set). Public only because H2 instantiates it by name; not an API.
 */
public final class H2FenceTrigger implements Trigger {

  private String map = "";
  private String table = "";
  private String keyColumn = "";
  private int mask;
  private int keyIndex = -1;

  /** Called by H2. */
  public H2FenceTrigger() {
  }

  @Override
  public void init(Connection c, String schemaName, String triggerName, String tableName, boolean before, int type)
      throws SQLException {
    try (PreparedStatement ps = c.prepareStatement("SELECT map_name, key_column, gene_bits FROM "
        + BucketFence.H2_TRIGGERS + " WHERE LOWER(trigger_name) = ?")) {
      ps.setString(1, triggerName.toLowerCase(Locale.ROOT));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("gene-id fence trigger " + triggerName + " has no row in "
              + BucketFence.H2_TRIGGERS, BucketFence.SQL_STATE, BucketFence.VENDOR_CODE);
        }
        map = rs.getString(1);
        keyColumn = rs.getString(2);
        mask = (1 << rs.getInt(3)) - 1;
      }
    }
    table = tableName;
    try (PreparedStatement ps = c.prepareStatement("SELECT ORDINAL_POSITION FROM INFORMATION_SCHEMA.COLUMNS"
        + " WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND LOWER(COLUMN_NAME) = ?")) {
      ps.setString(1, schemaName);
      ps.setString(2, tableName);
      ps.setString(3, keyColumn.toLowerCase(Locale.ROOT));
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          throw new SQLException("gene-id fence: no column " + keyColumn + " in " + tableName, "42S22");
        }
        keyIndex = rs.getInt(1) - 1;
      }
    }
  }

  @Override
  public void fire(Connection c, Object @Nullable [] oldRow, Object @Nullable [] newRow) throws SQLException {
    Long oldBucket = bucket(oldRow);
    Long newBucket = bucket(newRow);
    if (oldBucket == null && newBucket == null) {
      return;
    }
    try (PreparedStatement ps = c.prepareStatement("SELECT bucket FROM " + BucketFence.TABLE
        + " WHERE map_name = ? AND bucket IN (?, ?) AND @gene_id_mover IS NULL")) {
      ps.setString(1, map);
      ps.setLong(2, oldBucket == null ? newBucket : oldBucket);
      ps.setLong(3, newBucket == null ? oldBucket : newBucket);
      try (ResultSet rs = ps.executeQuery()) {
        if (rs.next()) {
          String op = oldRow == null ? "INSERT" : newRow == null ? "DELETE" : "UPDATE";
          Object key = (rs.getLong(1) == (newBucket == null ? -1 : newBucket) ? newRow : oldRow)[keyIndex];
          throw new SQLException("gene-id fence: bucket " + rs.getLong(1) + " of map '" + map + "' is moving; " + op
              + " of " + table + "." + keyColumn + " = " + key + " refused, retry the transaction in a moment",
              BucketFence.SQL_STATE, BucketFence.VENDOR_CODE);
        }
      }
    }
  }

  private @Nullable Long bucket(Object @Nullable [] row) {
    if (row == null || row[keyIndex] == null) {
      return null;
    }
    Object key = row[keyIndex];
    long value = key instanceof Number n ? n.longValue() : Long.parseLong(key.toString().trim());
    return value & mask;
  }
}
