/** The few parts of mvdan-sh (mvdan/sh's bash parser built to JavaScript) the shell judge uses. */
declare module 'mvdan-sh' {
  /** A syntax tree node; its fields are those of mvdan.cc/sh/v3/syntax, by type (see NodeType). */
  export interface ShNode {
    [field: string]: unknown;
  }
  export interface ShParser {
    /** Throws an object whose Error() says what and where when the text is not valid shell. */
    Parse(src: string, name: string): ShNode;
  }
  export const syntax: {
    NewParser(...options: unknown[]): ShParser;
    NodeType(node: unknown): string;
    Walk(node: unknown, visit: (node: ShNode | null) => boolean): void;
  };
}
