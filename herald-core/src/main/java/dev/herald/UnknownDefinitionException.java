package dev.herald;

/** A notice or operation named a definition that does not exist. */
public class UnknownDefinitionException extends InvalidInputException {
  private final String definition;

  public UnknownDefinitionException(String field, String definition) {
    super(field, "no definition named '" + definition + "'");
    this.definition = definition;
  }

  public String definition() {
    return definition;
  }
}
