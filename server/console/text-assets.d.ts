// The console's stylesheet is imported as text (`with { type: "text" }`) and served as it is.
declare module "*.css" {
  const text: string
  export default text
}
