package io.geneid.examples;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every {@code java} block of the README compiles as a reader copies it, imports included: a block that declares a
 * type is a source file of its own, a block of statements (quick start 3) is compiled as the body of a method, and
 * then runs as written. A block that is an excerpt of a file of {@code examples/} ({@code <!-- excerpt: ... -->}) is
 * left to {@link ReadmeExcerptsTest}: its project compiles the whole file, and its test runs it on embedded H2.
 */
class ReadmeCodeTest {

  private static final Pattern JAVA = Pattern.compile("(<!-- excerpt: \\S+ -->\\s*\\n)?```java\\n(.*?)```",
      Pattern.DOTALL);
  private static final Pattern TYPE = Pattern.compile("^(public |final |abstract )*(class|interface|record|enum) (\\w+)",
      Pattern.MULTILINE);

  @TempDir Path dir;

  @Test
  void everyJavaBlockCompilesAndTheStatementsRun() throws Exception {
    String readme = Files.readString(Path.of("..", "README.md"), StandardCharsets.UTF_8);
    List<Path> sources = new ArrayList<>();
    List<String> statementBlocks = new ArrayList<>();
    Matcher m = JAVA.matcher(readme);
    while (m.find()) {
      if (m.group(1) == null) {
        int line = readme.substring(0, m.start(2)).split("\n", -1).length;
        sources.add(source(m.group(2), line, statementBlocks));
      }
    }
    assertThat(statementBlocks).as("blocks of statements in the README (quick start 3)").isNotEmpty();
    Path classes = Files.createDirectories(dir.resolve("classes"));
    compile(sources, classes);

    try (URLClassLoader loader = new URLClassLoader(new URL[] {classes.toUri().toURL()},
        getClass().getClassLoader())) {
      for (String block : statementBlocks) {
        Method run = loader.loadClass(block).getMethod("run");
        run.invoke(null); // quick start 3 as written
      }
    }
  }

  /** Writes a block as a source file (a block of statements as the body of {@code run()}); returns the file. */
  private Path source(String code, int line, List<String> statementBlocks) throws Exception {
    Matcher type = TYPE.matcher(code);
    if (type.find()) {
      Matcher pkg = Pattern.compile("^package ([\\w.]+);", Pattern.MULTILINE).matcher(code);
      Path folder = pkg.find() ? dir.resolve("src").resolve(pkg.group(1).replace('.', '/')) : dir.resolve("src");
      return Files.writeString(Files.createDirectories(folder).resolve(type.group(3) + ".java"), code);
    }
    StringBuilder imports = new StringBuilder();
    StringBuilder body = new StringBuilder();
    for (String l : code.split("\n")) {
      (l.startsWith("import ") ? imports : body).append(l).append('\n');
    }
    String name = "ReadmeLine" + line;
    statementBlocks.add("readme." + name);
    String unit = "package readme;\n" + imports + "public class " + name + " {\n"
        + "  public static void run() throws Exception {\n" + body + "  }\n}\n";
    return Files.writeString(Files.createDirectories(dir.resolve("src/readme")).resolve(name + ".java"), unit);
  }

  private static void compile(List<Path> sources, Path classes) {
    JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
    List<String> args = new ArrayList<>(List.of("-d", classes.toString(), "-proc:none", "-Xlint:none",
        "-classpath", System.getProperty("java.class.path")));
    sources.forEach(s -> args.add(s.toString()));
    int rc = javac.run(null, null, null, args.toArray(String[]::new));
    assertThat(rc).as("javac on the README's java blocks (its messages are above)").isZero();
  }
}
