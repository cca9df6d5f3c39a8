package io.geneid.core.lease;

import io.geneid.core.settings.InvalidSettingException;

import io.geneid.core.internal.Checks;
import io.geneid.core.GeneIdException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * A fixed worker id from configuration, or the ordinal at the end of the host name as a Kubernetes StatefulSet sets
 * it ({@code orders-3} -> 3), with the high-water mark kept in a local file.
 *
 * <p>The mark file makes a restart after a clock rollback safe: the restarted process issues only after the mark the
 * previous run recorded. It holds one line, the mark in milliseconds since 1970, replaced atomically and durably: the
 * new content is flushed to disk, moved over the old file, and the directory is flushed too, so a power loss cannot
 * bring back an older mark. Every grant starts above {@code max(mark file, now + borrowSlack)}: a previous run that
 * crashed before its mark reached the file (or a missing file) issued at most {@code borrowSlack} beyond its clock,
 * which was before this one's. A lock file
 * next to it ({@code <mark file>.lock}) keeps a second process on the same host from holding the same worker id.
 * Nothing protects two hosts configured with the same id: use a Redis or JDBC assigner for fleets that change.
 *
 * <p>Its leases never expire ({@link WorkerLease#expiresAt()} is {@link Instant#MAX}); {@link #ttl()} only sets how
 * far ahead of the clock a {@link io.geneid.core.snowflake.LeasedGeneGenerator} records its mark, which is also how long a restart right after
 * a crash may have to wait for its clock to pass the mark.
 */
public final class StaticWorkerIdAssigner implements WorkerIdAssigner {

  /** Default {@link Builder#ttl(Duration)}. */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(5);

  private static final Pattern ORDINAL = Pattern.compile("^.*-(\\d{1,9})$");

  private final String space;
  private final long workerId;
  private final Path markFile;
  private final Duration ttl;
  private final String owner;
  private final Object lock = new Object();
  private @Nullable FileChannel lockChannel;
  private @Nullable FileLock fileLock;
  private long token;
  private long recordedMark;

  private StaticWorkerIdAssigner(Builder b, long workerId) {
    this.space = b.space;
    this.workerId = workerId;
    this.ttl = b.ttl;
    this.owner = b.owner;
    this.markFile = b.markFile != null ? b.markFile : defaultMarkFile(b.space, workerId);
  }

  /** A builder; a worker id (fixed or from the host name) is required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The StatefulSet ordinal at the end of a host name: {@code orders-3} -> 3.
   *
   * @throws IllegalArgumentException if the name does not end in {@code -<digits>}
   */
  public static long ordinalOf(String hostname) {
    Matcher m = ORDINAL.matcher(hostname);
    if (!m.matches()) {
      throw new IllegalArgumentException("cannot take a worker id from host name '" + hostname
          + "': expected a StatefulSet pod name ending in -<ordinal>, such as orders-3");
    }
    return Long.parseLong(m.group(1));
  }

  /** This host's name: the {@code HOSTNAME} environment variable (set by Kubernetes), else the resolver's. */
  public static String localHostname() {
    String env = System.getenv("HOSTNAME");
    if (env != null && !env.isBlank()) {
      return env.trim();
    }
    try {
      return InetAddress.getLocalHost().getHostName();
    } catch (UnknownHostException e) {
      throw new GeneIdException("cannot read this host's name for a worker id: " + e.getMessage(), e);
    }
  }

  /** {@code <java.io.tmpdir>/gene-id/<space>-worker-<id>.mark}. */
  static Path defaultMarkFile(String space, long workerId) {
    return Path.of(System.getProperty("java.io.tmpdir"), "gene-id", space + "-worker-" + workerId + ".mark");
  }

  /** The configured worker id. */
  public long workerId() {
    return workerId;
  }

  /** Where the high-water mark is kept. */
  public Path markFile() {
    return markFile;
  }

  @Override
  public String space() {
    return space;
  }

  /** A static worker id has no other holder; its history is its mark file, which only this process writes. */
  @Override
  public boolean vouchesForHistory() {
    return true;
  }

  @Override
  public Duration ttl() {
    return ttl;
  }

  @Override
  public WorkerLease acquire(long layoutMaxWorkerId, Duration borrowSlack) {
    if (workerId > layoutMaxWorkerId) {
      InvalidSettingException.requireRange("workerId", workerId, 0, layoutMaxWorkerId);
    }
    synchronized (lock) {
      if (fileLock != null) {
        throw new GeneIdException("worker id " + workerId + " of space '" + space
            + "' is already leased by this static assigner; it has exactly one worker id to give");
      }
      try {
        Files.createDirectories(markFile.toAbsolutePath().getParent());
        FileChannel channel = FileChannel.open(lockFile(), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock taken;
        try {
          taken = channel.tryLock();
        } catch (OverlappingFileLockException e) {
          taken = null;
        }
        if (taken == null) {
          channel.close();
          throw new GeneIdException("worker id " + workerId + " of space '" + space
              + "' is in use by another generator on this host (" + lockFile() + " is locked)");
        }
        this.lockChannel = channel;
        this.fileLock = taken;
        this.recordedMark = readMark();
        this.token++;
        // the previous run of this worker id ended before now and borrowed at most borrowSlack beyond its clock
        long floor = Math.max(recordedMark, System.currentTimeMillis() + Math.max(0L, borrowSlack.toMillis()));
        Instant mark = Instant.ofEpochMilli(floor);
        return new WorkerLease(space, workerId, token, owner, mark, mark, Instant.MAX);
      } catch (IOException e) {
        throw new GeneIdException("cannot lock the mark file " + markFile + " of worker id " + workerId + ": " + e,
            e);
      }
    }
  }

  @Override
  public WorkerLease renew(WorkerLease lease, Instant highWaterMark) {
    synchronized (lock) {
      checkHeld(lease);
      long mark = Math.max(recordedMark, highWaterMark.toEpochMilli());
      if (mark != recordedMark) {
        writeMark(mark);
        recordedMark = mark;
      }
      return lease.renewed(Instant.ofEpochMilli(mark), Instant.MAX);
    }
  }

  @Override
  public void release(WorkerLease lease, Instant highWaterMark) {
    synchronized (lock) {
      if (fileLock == null || lease.token() != token) {
        return;
      }
      try {
        writeMark(highWaterMark.toEpochMilli());
      } finally {
        unlock();
      }
    }
  }

  @Override
  public void close() {
    synchronized (lock) {
      unlock();
    }
  }

  private void checkHeld(WorkerLease lease) {
    if (fileLock == null || lease.token() != token || lease.workerId() != workerId) {
      throw new WorkerLeaseLostException(space, lease.workerId(), "worker id " + lease.workerId() + " of space '"
          + space + "' is not held under token " + lease.token() + " by this static assigner", null);
    }
  }

  private void unlock() {
    try {
      if (lockChannel != null) {
        lockChannel.close(); // releases the lock
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      lockChannel = null;
      fileLock = null;
    }
  }

  private Path lockFile() {
    return markFile.resolveSibling(markFile.getFileName() + ".lock");
  }

  private long readMark() throws IOException {
    String text;
    try {
      text = Files.readString(markFile, StandardCharsets.US_ASCII).trim();
    } catch (NoSuchFileException e) {
      return 0L;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw new GeneIdException("the mark file " + markFile + " of worker id " + workerId
          + " must hold a number of milliseconds but holds '" + text + "': fix or delete it only if no id of this "
          + "worker id was issued after the clock it would fall back to", e);
    }
  }

  private void writeMark(long mark) {
    Path tmp = markFile.resolveSibling(markFile.getFileName() + ".tmp");
    try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
        StandardOpenOption.TRUNCATE_EXISTING)) {
      ch.write(StandardCharsets.US_ASCII.encode(Long.toString(mark) + "\n"));
      ch.force(true);
    } catch (IOException e) {
      throw new GeneIdException("cannot write the mark file " + tmp + " of worker id " + workerId + ": " + e, e);
    }
    try {
      try {
        Files.move(tmp, markFile, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } catch (AtomicMoveNotSupportedException e) {
        Files.move(tmp, markFile, StandardCopyOption.REPLACE_EXISTING);
      }
    } catch (IOException e) {
      throw new GeneIdException("cannot replace the mark file " + markFile + " of worker id " + workerId + ": " + e,
          e);
    }
    try {
      syncDirectory(markFile.toAbsolutePath().getParent());
    } catch (IOException e) {
      throw new GeneIdException("cannot flush the directory of the mark file " + markFile + " of worker id "
          + workerId + " (the new mark could be lost in a power failure): " + e, e);
    }
  }

  /**
   * Flushes a directory's entries to disk, so a rename in it survives a power loss. Works on Linux and macOS; where a
   * directory cannot be opened for this (Windows), the rename is left to the file system's own journal.
   */
  static void syncDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("windows")) {
        throw e;
      }
    }
  }

  @Override
  public String store() {
    return "mark file " + markFile;
  }

  @Override
  public String toString() {
    return "StaticWorkerIdAssigner[space=" + space + ", workerId=" + workerId + ", markFile=" + markFile + ", ttl="
        + ttl + "]";
  }

  /** Configuration of a {@link StaticWorkerIdAssigner}. */
  public static final class Builder {
    String space = WorkerIdAssigners.DEFAULT_SPACE;
    long workerId = -1;
    @Nullable String hostname;
    long ordinalOffset;
    @Nullable Path markFile;
    Duration ttl = DEFAULT_TTL;
    String owner = WorkerIdAssigners.defaultOwner();

    private Builder() {}

    /** The pool name, used in the default mark file name. Default {@code "default"}. */
    public Builder space(String space) {
      this.space = WorkerIdAssigners.checkSpace(space);
      return this;
    }

    /** A fixed worker id, at least 0 (the layout sets the upper bound). */
    public Builder workerId(long workerId) {
      if (workerId < 0) {
        throw new IllegalArgumentException("workerId must not be negative but was " + workerId);
      }
      this.workerId = workerId;
      this.hostname = null;
      return this;
    }

    /**
     * The worker id is {@code offset +} the ordinal at the end of {@code hostname} ({@code orders-3} -> 3): each
     * pod of a StatefulSet gets its own. Use {@link StaticWorkerIdAssigner#localHostname()} for this host.
     */
    public Builder workerIdFromHostname(String hostname, long offset) {
      ordinalOf(hostname); // fail now on a bad name
      if (offset < 0) {
        throw new IllegalArgumentException("worker id offset must not be negative but was " + offset);
      }
      this.hostname = hostname;
      this.ordinalOffset = offset;
      return this;
    }

    /** Where to keep the high-water mark. Default {@code <java.io.tmpdir>/gene-id/<space>-worker-<id>.mark}. */
    public Builder markFile(Path markFile) {
      this.markFile = Objects.requireNonNull(markFile, "markFile");
      return this;
    }

    /** How far ahead of the clock the mark is recorded, in [100ms, 1h]. Default 5 s. */
    public Builder ttl(Duration ttl) {
      this.ttl = Checks.duration("lease-ttl", ttl, WorkerIdAssigners.MIN_TTL,
          WorkerIdAssigners.MAX_TTL);
      return this;
    }

    /** Shown as the holder. Default {@code pid@host}. */
    public Builder owner(String owner) {
      this.owner = Objects.requireNonNull(owner, "owner");
      return this;
    }

    /**
     * @throws IllegalArgumentException if no worker id was set
     */
    public StaticWorkerIdAssigner build() {
      long id = hostname != null ? ordinalOffset + ordinalOf(hostname) : workerId;
      if (id < 0) {
        throw new IllegalArgumentException(
            "a static worker id must be set: workerId(n) or workerIdFromHostname(host, offset)");
      }
      return new StaticWorkerIdAssigner(this, id);
    }
  }
}
