/**
 * The Java client of {@code gene-id-server}: {@link io.geneid.client.GeneIdClient}, a
 * {@link io.geneid.core.GeneIdGenerator} over ids bought from one or more servers and buffered per gene (snowflake
 * ids) or per business key (segment ids), with failover between addresses and clear errors
 * ({@link io.geneid.client.GeneServerUnavailableException}, {@link io.geneid.client.GeneServerRefusedException}).
 * Transport: HTTP/JSON over the JDK's {@code java.net.http.HttpClient}; no other dependency than gene-id-core.
 */
@NullMarked
package io.geneid.client;

import org.jspecify.annotations.NullMarked;
