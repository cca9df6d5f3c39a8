package io.geneid.server;

import io.geneid.core.GeneIdLayout;
import java.math.BigInteger;
import java.util.UUID;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Whose gene a request's ids carry: a gene, a numeric, string or UUID parent key (the spec's section 2), or none
 * (spread). The same on both protocols.
 *
 * @param kind which parameter named the parent
 * @param text the value as the client sent it (for messages)
 * @param gene the gene it gives under the server's layout
 */
record ParentKey(Kind kind, String text, long gene) {

  /** The parameters of the HTTP API, in the order of docs/server.md. */
  enum Kind {
    GENE("gene"), PARENT("parent"), PARENT_STRING("parentString"), PARENT_UUID("parentUuid");

    final String param;

    Kind(String param) {
      this.param = param;
    }
  }

  private static final Pattern UUID_FORM =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern DECIMAL = Pattern.compile("[-+]?[0-9]{1,200}");

  static ParentKey gene(long gene, GeneIdLayout layout) {
    if (gene < 0 || gene > layout.maxGene()) {
      throw ApiException.invalid("gene must be in [0, " + layout.maxGene() + "] but was " + gene);
    }
    return new ParentKey(Kind.GENE, Long.toString(gene), gene);
  }

  static ParentKey of(Kind kind, String value, GeneIdLayout layout) {
    switch (kind) {
      case GENE -> {
        long gene;
        try {
          gene = Long.parseLong(value);
        } catch (NumberFormatException e) {
          throw ApiException.invalid("gene must be a whole number in [0, " + layout.maxGene() + "] but was '"
              + clip(value) + "'");
        }
        return gene(gene, layout);
      }
      case PARENT -> {
        if (!DECIMAL.matcher(value).matches()) {
          throw ApiException.invalid("parent must be a decimal whole number but was '" + clip(value) + "'");
        }
        // a number of any width keeps its low bits, in two's complement (spec section 2)
        long low = new BigInteger(value).longValue();
        return new ParentKey(kind, value, layout.geneOf(low));
      }
      case PARENT_STRING -> {
        return new ParentKey(kind, value, layout.geneOf(value));
      }
      case PARENT_UUID -> {
        if (!UUID_FORM.matcher(value).matches()) {
          throw ApiException.invalid("parentUuid must be a UUID of 36 characters (8-4-4-4-12 hexadecimal digits) "
              + "but was '" + clip(value) + "'");
        }
        return new ParentKey(kind, value, layout.geneOfKey(UUID.fromString(value)));
      }
      default -> throw new IllegalStateException(kind.toString());
    }
  }

  /** From the gRPC message; null for an unset parent (spread). */
  static @Nullable ParentKey of(io.geneid.server.grpc.v1.@Nullable Parent parent, GeneIdLayout layout) {
    if (parent == null) {
      return null;
    }
    return switch (parent.getKeyCase()) {
      case GENE -> gene(Integer.toUnsignedLong(parent.getGene()), layout);
      case NUMBER -> new ParentKey(Kind.PARENT, Long.toString(parent.getNumber()), layout.geneOf(parent.getNumber()));
      case TEXT -> of(Kind.PARENT_STRING, parent.getText(), layout);
      case UUID -> of(Kind.PARENT_UUID, parent.getUuid(), layout);
      case KEY_NOT_SET -> null;
    };
  }

  static String clip(String value) {
    return value.length() <= 64 ? value : value.substring(0, 64) + "...";
  }
}
