package dev.herald.spring.docs;

import org.springframework.boot.autoconfigure.SpringBootApplication;

/** The shop application of the README's examples; its beans are in this package. */
@SpringBootApplication
public class ShopApplication {}
