package io.geneid.examples.kotlin

import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue

class KotlinExampleTest {

    @Test
    fun `the example stores every item with its order's gene`() {
        val lines = mutableListOf<String>()
        val result = runExample(workerId = 43, orders = 6, out = { lines += it })
        assertEquals(6, result.itemsByOrder.size)
        assertTrue(result.itemsByOrder.values.all { it.size == 3 }, "one-by-one, collection and batch item per order")
        assertTrue(result.coLocated)
        assertEquals(6, result.itemsByOrder.keys.map { result.layout.geneOf(it) }.toSet().size,
            "consecutive order ids spread over genes")
        assertEquals(1 + 6, lines.size)
    }
}
