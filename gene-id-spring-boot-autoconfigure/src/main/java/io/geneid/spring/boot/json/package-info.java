/** Ids in JSON: {@code gene-id.json.ids-as-strings}. */
@NullMarked
package io.geneid.spring.boot.json;

import org.jspecify.annotations.NullMarked;
