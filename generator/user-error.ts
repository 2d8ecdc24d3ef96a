// Errors about what the user gave (input, options, folders): the CLI prints their message alone, without a stack.
export class UserError extends Error {}
