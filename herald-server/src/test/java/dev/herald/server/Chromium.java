package dev.herald.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Debian's headless Chromium and chromedriver (scripts/install-test-packages.sh), with a throw-away
 * profile; screenshots go under target/console-screenshots.
 */
final class Chromium implements AutoCloseable {
  static final Path SHOTS = Path.of("target", "console-screenshots");

  final ChromeDriver browser;
  private final Path profile;

  Chromium() {
    try {
      Files.createDirectories(SHOTS);
      profile = Files.createTempDirectory("herald-chromium");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    ChromeOptions options = new ChromeOptions();
    options.setBinary("/usr/bin/chromium");
    options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
        "--window-size=1400,1000", "--user-data-dir=" + profile);
    ChromeDriverService service = new ChromeDriverService.Builder()
        .usingDriverExecutable(Path.of("/usr/bin/chromedriver").toFile()).usingAnyFreePort().build();
    browser = new ChromeDriver(service, options);
  }

  void shot(String page) {
    try {
      Files.copy(browser.getScreenshotAs(OutputType.FILE).toPath(), SHOTS.resolve(page + ".png"),
          StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    browser.quit();
    try (var files = Files.walk(profile)) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
