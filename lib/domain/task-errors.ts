import { Schema } from "effect"
import { FieldIssue } from "./errors.js"

export class TaskNotFound extends Schema.TaggedError<TaskNotFound>()("TaskNotFound", {
  id: Schema.String
}) {
  override get message() {
    return "No such task in this workspace"
  }
}

/** A change of a task (its status, assignee, due date, note) breaks a rule; every problem is listed. */
export class InvalidTaskChange extends Schema.TaggedError<InvalidTaskChange>()("InvalidTaskChange", {
  errors: Schema.Array(FieldIssue)
}) {
  override get message() {
    return this.errors.map((e) => `${e.path}: ${e.message}`).join("; ")
  }
}
