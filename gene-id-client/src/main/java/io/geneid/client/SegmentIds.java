package io.geneid.client;

/**
 * Segment ids of one business key ({@code /v1/segments/{key}/ids}) with one {@link IdBuffer} for the key.
 *
 * <p>A segment id is {@code value << G | gene} and its value is unique for the key whatever gene it carries
 * (docs/server.md, docs/segments.md). So the buffer holds ids asked for with gene 0 (checked to carry it), and an id
 * is handed out with the gene the caller needs set in its low bits: one buffer serves every gene, its values are
 * handed out once each, and no value is bought per gene that might go unused. Root rows get the low G bits of the
 * value as their gene, so consecutive root ids cycle through the genes, as with the library's segment generator.
 */
final class SegmentIds extends BufferedIds {

  private final String key;
  private final IdBuffer buffer;

  SegmentIds(GeneIdClient client, String key) {
    super(client);
    this.key = key;
    this.buffer = client.newBuffer("segment key '" + key + "'", n -> client.fetchChunked(n,
        chunk -> client.calls().segmentIds(key, chunk)));
  }

  /** {@code count} ids of gene 0: fresh values, in the order the servers handed them out. */
  private void values(long[] into, int from, int count) {
    if (count > client.settings().batchSize()) {
      client.fetchDirect(into, from, count, n -> client.calls().segmentIds(key, n));
    } else {
      buffer.take(into, from, count);
    }
  }

  @Override
  void run(long gene, long[] into, int from, int count) {
    values(into, from, count);
    for (int i = from; i < from + count; i++) {
      into[i] |= gene;
    }
  }

  @Override
  long rootId() {
    long[] id = new long[1];
    values(id, 0, 1);
    return withValueGene(id[0]);
  }

  @Override
  long[] rootIds(int n) {
    long[] ids = new long[n];
    values(ids, 0, n);
    for (int i = 0; i < n; i++) {
      ids[i] = withValueGene(ids[i]);
    }
    return ids;
  }

  /** A gene-0 id with the low G bits of its value as its gene. */
  private long withValueGene(long id) {
    int g = layout().geneBits();
    return id | ((id >>> g) & layout().maxGene());
  }

  long buffered() {
    return buffer.available();
  }

  void close() {
    buffer.close();
  }

  @Override
  public String toString() {
    return "segment ids of key '" + key + "' from " + client;
  }
}
