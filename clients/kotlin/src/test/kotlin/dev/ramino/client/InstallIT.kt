package dev.ramino.client

import org.junit.jupiter.api.Assertions.assertEquals
import org.junit.jupiter.api.Assertions.assertFalse
import org.junit.jupiter.api.Assertions.assertTrue
import org.junit.jupiter.api.Test
import org.junit.jupiter.api.io.TempDir
import java.io.File
import java.util.concurrent.TimeUnit

/**
 * The artifact as its users get it: installed into the project-local Maven
 * repository, then a scratch Maven project that depends on it (and on nothing
 * of this build) compiles the README's example and runs it against a live
 * server. Run by failsafe (`mvn verify`), after the jar is packaged.
 */
class InstallIT {
    private val m2 = File(System.getProperty("ramino.m2") ?: error("ramino.m2 is not set (pom.xml sets it)"))
    private val version = System.getProperty("ramino.sdk.version") ?: error("ramino.sdk.version is not set")
    private val jar = File(System.getProperty("ramino.sdk.jar") ?: error("ramino.sdk.jar is not set"))

    private fun mvn(dir: File, vararg args: String, env: Map<String, String> = emptyMap()): String {
        val command = listOf("mvn", "-B", "-q", "-Dmaven.repo.local=${m2.path}") + args
        val pb = ProcessBuilder(command).directory(dir).redirectErrorStream(true)
        pb.environment().putAll(env)
        val process = pb.start()
        val out = process.inputStream.bufferedReader().readText()
        assertTrue(process.waitFor(10, TimeUnit.MINUTES), "mvn ${args.joinToString(" ")} did not end")
        assertEquals(0, process.exitValue(), "mvn ${args.joinToString(" ")} failed:\n$out")
        return out.replace(ANSI, "") // Maven 3.8's console colours, even in batch mode
    }

    private fun readmeBlocks(): List<String> {
        val readme = File(REPO, "clients/kotlin/README.md").readText()
        return Regex("```kotlin\n(.*?)```", RegexOption.DOT_MATCHES_ALL).findAll(readme).map { it.groupValues[1] }.toList()
    }

    private fun readmeExample(): String = readmeBlocks().firstOrNull() ?: error("no kotlin block in clients/kotlin/README.md")

    /** The README's seat player (its second block), as a function of a seat the scratch project calls. */
    private fun readmeSeatPlayer(): String {
        val block = readmeBlocks().getOrNull(1) ?: error("no second kotlin block in clients/kotlin/README.md")
        check("Bot.playSession" in block) { "the README's second kotlin block is not the seat player:\n$block" }
        return """
            import dev.ramino.client.GameView
            import dev.ramino.client.Seat
            import dev.ramino.client.bot.Bot

            suspend fun readmeSeatPlayer(seat: Seat): GameView {
            ${block.prependIndent("    ")}
                return mine
            }
        """.trimIndent()
    }

    @Test
    fun `a scratch project on the installed artifact runs the README's example`(@TempDir scratch: File) {
        assertTrue(jar.isFile, "$jar is missing: the jar is packaged before integration-test")
        mvn(
            File(REPO, "clients/kotlin"),
            "org.apache.maven.plugins:maven-install-plugin:3.1.3:install-file",
            "-Dfile=${jar.path}",
            "-DpomFile=${File(REPO, "clients/kotlin/pom.xml").path}",
        )
        File(scratch, "src/main/kotlin").mkdirs()
        File(scratch, "src/main/kotlin/Main.kt").writeText(readmeExample())
        File(scratch, "src/main/kotlin/EveryVariant.kt").writeText(EVERY_VARIANT)
        File(scratch, "src/main/kotlin/SeatPlayer.kt").writeText(readmeSeatPlayer())
        File(scratch, "pom.xml").writeText(scratchPom(version))

        val deps = File(scratch, "deps.txt")
        mvn(scratch, "dependency:list", "-DoutputFile=${deps.path}", "-DexcludeTransitive=false")
        val listed = deps.readText()
        assertTrue(listed.contains("dev.ramino:ramino-client:jar:$version"), listed)
        assertTrue(listed.contains("com.google.protobuf:protobuf-javalite:jar"), "no lite runtime:\n$listed")
        assertTrue(listed.contains("io.grpc:grpc-okhttp:jar"), "no okhttp transport:\n$listed")
        assertFalse(listed.contains("netty"), "netty in the artifact's dependencies:\n$listed")
        assertFalse(listed.contains("com.google.protobuf:protobuf-java:"), "the full protobuf runtime in the artifact's dependencies:\n$listed")

        withServer { server ->
            val out = mvn(scratch, "package", "exec:java", env = mapOf("RAMINO_SERVER" to server.address))
            val lines = out.lines().filter { it.isNotBlank() }
            assertTrue(lines.first().matches(Regex("games/\\w+, seat 0, hand .+")), out)
            assertTrue(lines.contains("refused: NOT_FOUND GAME_NOT_FOUND"), out)
            assertTrue(lines.any { it.startsWith("round 1 ended: ") }, out)
            assertTrue(lines.last().startsWith("finished: GAME_STATUS_FINISHED winners ["), out)

            // Every variant, a round of each, played on the seat's session by the SDK's bot.
            val played = mvn(
                scratch, "exec:java", "-Dexec.mainClass=EveryVariantKt",
                env = mapOf("RAMINO_SERVER" to server.address),
            ).lines().filter { it.isNotBlank() }
            assertEquals(
                listOf("ramino51", "rami51", "rummy", "gin").map { "$it: GAME_STATUS_FINISHED" },
                played,
            )
        }
    }

    private fun scratchPom(version: String): String =
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <project xmlns="http://maven.apache.org/POM/4.0.0">
          <modelVersion>4.0.0</modelVersion>
          <groupId>example</groupId>
          <artifactId>ramino-scratch</artifactId>
          <version>1</version>
          <properties>
            <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>
            <!-- a property, not the plugin's configuration: -Dexec.mainClass picks another -->
            <exec.mainClass>MainKt</exec.mainClass>
          </properties>
          <dependencies>
            <dependency>
              <groupId>dev.ramino</groupId>
              <artifactId>ramino-client</artifactId>
              <version>$version</version>
            </dependency>
          </dependencies>
          <build>
            <sourceDirectory>src/main/kotlin</sourceDirectory>
            <plugins>
              <plugin>
                <groupId>org.jetbrains.kotlin</groupId>
                <artifactId>kotlin-maven-plugin</artifactId>
                <version>${KOTLIN_VERSION}</version>
                <executions>
                  <execution><id>compile</id><goals><goal>compile</goal></goals></execution>
                </executions>
                <configuration><jvmTarget>17</jvmTarget></configuration>
              </plugin>
              <plugin>
                <groupId>org.apache.maven.plugins</groupId>
                <artifactId>maven-dependency-plugin</artifactId>
                <version>3.8.1</version>
              </plugin>
              <plugin>
                <groupId>org.codehaus.mojo</groupId>
                <artifactId>exec-maven-plugin</artifactId>
                <version>3.5.1</version>
              </plugin>
            </plugins>
          </build>
        </project>
        """.trimIndent()

    private companion object {
        /** A round of every variant, each played to its end on the seat's session. */
        val EVERY_VARIANT =
            """
            import dev.ramino.client.ClientOptions
            import dev.ramino.client.GameSpec
            import dev.ramino.client.RaminoClient
            import dev.ramino.client.VariantParameters
            import dev.ramino.client.bot.Bot
            import dev.ramino.client.greedyBot
            import dev.ramino.client.person
            import kotlinx.coroutines.runBlocking

            fun main() = runBlocking {
                val server = System.getenv("RAMINO_SERVER") ?: "127.0.0.1:50051"
                RaminoClient(server, ClientOptions()).use { client ->
                    for (variant in listOf("ramino51", "rami51", "rummy", "gin")) {
                        val oneRound = VariantParameters.newBuilder().setMaxRounds(1).build()
                        val game = client.createGame(GameSpec(variant, listOf(person("kt"), greedyBot()), oneRound))
                        val seat = client.joinGame(game.name, "kt")
                        // The README's seat player in gin; the SDK's bot in the others.
                        val view = if (variant == "gin") readmeSeatPlayer(seat) else Bot.playSession(seat)
                        println("${'$'}variant: ${'$'}{view.status}")
                    }
                }
            }
            """.trimIndent()
        val ANSI = Regex("\u001B\\[[0-9;]*m")
        val KOTLIN_VERSION: String = System.getProperty("ramino.kotlin.version") ?: error("ramino.kotlin.version is not set")
    }
}
