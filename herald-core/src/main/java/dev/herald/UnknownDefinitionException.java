package dev.herald;

/** A notice or operation named a definition that does not exist. */
public class UnknownDefinitionException extends InvalidInputException {
  private final String definition;

  public UnknownDefinitionException(String field, String definition) {
    super(field, "no definition named '" + definition + "'");
    this.definition = definition;
  }

  /** Also lists the definitions there are, so that the caller can see what was meant. */
  public UnknownDefinitionException(String field, String definition, java.util.Collection<String> known) {
    super(field, "no definition named '" + definition + "'; definitions: " + known);
    this.definition = definition;
  }

  public String definition() {
    return definition;
  }
}
