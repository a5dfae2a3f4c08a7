package dev.herald.examples.spring;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Document 000 with Spring Boot: paying an order updates its row and, in the same transaction,
 * records a notice for the marketing platform. The notice is sent right after the commit, retried
 * when the platform fails, and never sent when the payment rolls back.
 *
 * <p>Run from the repository root: {@code ./mvnw -q -pl herald-example-spring -am spring-boot:run}.
 * It places a few orders, prints what was delivered, and exits.
 */
@SpringBootApplication
public class SpringExampleApplication {
  public static void main(String[] args) {
    // Closes the context (Herald stops gracefully) once the runner is done, and exits with its code.
    System.exit(SpringApplication.exit(SpringApplication.run(SpringExampleApplication.class, args)));
  }
}
