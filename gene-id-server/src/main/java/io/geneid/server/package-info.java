/**
 * gene-id-server: gene ids over HTTP/JSON and gRPC (issue #32). {@link io.geneid.server.GeneIdServer} runs one
 * server from a {@link io.geneid.server.ServerConfig}; {@link io.geneid.server.GeneIdServerMain} is the command line.
 * The API is described in {@code docs/server.md} and {@code geneid/v1/gene_id.proto}.
 */
@NullMarked
package io.geneid.server;

import org.jspecify.annotations.NullMarked;
