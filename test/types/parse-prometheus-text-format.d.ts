/** The parser ships no types: it returns the metric families of a text exposition, and throws on an invalid line. */
declare module 'parse-prometheus-text-format' {
  const parse: (text: string) => unknown[];
  export default parse;
}
