package io.geneid.kotlin

import io.geneid.core.GeneContext
import java.nio.file.Files
import java.nio.file.Path
import java.util.Collections
import kotlin.test.Test
import kotlin.test.assertEquals
import kotlin.test.assertTrue
import kotlinx.coroutines.Dispatchers
import kotlinx.coroutines.delay
import kotlinx.coroutines.launch
import kotlinx.coroutines.runBlocking
import kotlinx.coroutines.withContext

/** Every `kotlin` block of docs/threads.md is a region of this file between docs markers, and the regions run. */
class ThreadsDocTest {

    private val ids = testIds(15)
    private val layout = ids.layout()

    @Test
    fun `every kotlin block of threads md is code of this test`() {
        val page = Files.readString(Path.of("..", "docs", "threads.md"))
        val blocks = Regex("```kotlin\\n(.*?)```", RegexOption.DOT_MATCHES_ALL).findAll(page)
            .map { it.groupValues[1].trim() }.toList()
        val source = Files.readString(Path.of("src/test/kotlin/io/geneid/kotlin/ThreadsDocTest.kt"))
        val regions = Regex("// docs begin\\n(.*?)\\n\\s*// docs end", RegexOption.DOT_MATCHES_ALL).findAll(source)
            .map { it.groupValues[1].trimIndent().trim() }.toSet()
        assertEquals(2, blocks.size, "kotlin blocks of threads.md")
        for (block in blocks) {
            assertTrue(block in regions, "not code of ThreadsDocTest:\n$block")
        }
    }

    @Test
    fun withGene() = runBlocking {
        val orderId = 4242L
        // docs begin
        val itemId = withGene(orderId) {
            delay(10)                                        // resumes on any thread of the dispatcher
            withContext(Dispatchers.IO) { ids.nextId() }     // carries orderId's gene
        }
        // docs end
        assertEquals(layout.geneOf(orderId), layout.geneOf(itemId))
    }

    @Test
    fun asContextElement() {
        val orderId = 4243L
        val childIds: MutableList<Long> = Collections.synchronizedList(mutableListOf())
        // docs begin
        GeneContext.inherit(orderId).use { scope ->
            runBlocking(Dispatchers.Default + scope.asContextElement()) {
                launch { childIds += ids.nextId() }          // children inherit the element
            }
        }
        // docs end
        assertEquals(listOf(layout.geneOf(orderId)), childIds.map { layout.geneOf(it) })
    }
}
