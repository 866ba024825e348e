/**
 * The input scheduler (ARCHITECTURE.md "Input Scheduler & Interrupt Mechanism"): the policy
 * of which input runs, which waits and which is suspended. It is synchronous bookkeeping with
 * no turns of its own; the EventLoop acts on its decisions. docs/scheduler.md explains it.
 */
import type { Clock } from "../ports.ts";
import type { Input, PriorityLevel } from "../input.ts";
import { Fifo } from "./_fifo.ts";

/** Default bound of the ready queue (`core.agent.queue_capacity`). */
export const DEFAULT_QUEUE_CAPACITY = 256;
/** Default preemption cooldown in ms (`core.agent.preempt_cooldown_ms`). */
export const DEFAULT_PREEMPT_COOLDOWN_MS = 2000;
/** Highest effective level; also the most frames the interrupt stack can hold. */
export const MAX_LEVEL = 4;

/** Where a task is: waiting in the ready queue, running, or suspended on the interrupt stack. */
export type TaskState = "queued" | "running" | "suspended" | "done";

/** One input under scheduling: TaskQueued when `level` is 0, TaskInterrupt L1–L4 otherwise. */
export interface Task {
  readonly input: Input;
  readonly level: PriorityLevel;
  /** Admission order; ties within a level run in this order. */
  readonly seq: number;
  state: TaskState;
  /** Times it was preempted; raises its effective level (the starvation guard). */
  preemptCount: number;
  /** Marked by stop() while queued: short-circuited at pre_action instead of running. */
  stopped: boolean;
  /** Monotonic time it last started or resumed running. */
  startedAt?: number;
  /** Monotonic time it last resumed from the stack; the preemption cooldown counts from here. */
  resumedAt?: number;
}

/** `level + min(preemptCount, 2)`, capped at L4. */
export function effectiveLevel(task: Pick<Task, "level" | "preemptCount">): PriorityLevel {
  return Math.min(MAX_LEVEL, task.level + Math.min(task.preemptCount, 2)) as PriorityLevel;
}

/** What to do when nothing runs: start a queued task, resume a suspended one, or nothing. */
export type Dispatch =
  | { type: "start"; task: Task }
  | { type: "resume"; task: Task }
  | { type: "idle" };

/** A preemption that happened: `suspended` went onto the stack, `task` runs now. */
export interface Preemption {
  suspended: Task;
  task: Task;
}

/** What stop() touched: the running task, the suspended frames, and the queued tasks it marked. */
export interface StopSnapshot {
  running?: Task;
  suspended: Task[];
  queued: Task[];
}

/** Scheduler state for `status`. */
export interface SchedulerSnapshot {
  running?: TaskSummary;
  /** Bottom first. */
  stack: TaskSummary[];
  waiting: number;
  /** Waiting tasks per level, index = level. */
  waitingByLevel: number[];
  capacity: number;
  cooldownMs: number;
  /** Monotonic time the current busy period began; absent when idle. */
  busySince?: number;
}

/** A task as `status` shows it. */
export interface TaskSummary {
  id: string;
  source: string;
  level: PriorityLevel;
  effectiveLevel: PriorityLevel;
  preemptCount: number;
}

/** Options of a Scheduler. */
export interface SchedulerOptions {
  clock: Clock;
  /** Most tasks that may wait in the ready queue; default 256. */
  capacity?: number;
  /** Milliseconds after a resume during which the task cannot be preempted; default 2000. */
  cooldownMs?: number;
}

/**
 * Ready queue (one FIFO per level, higher levels first), the running task and the interrupt
 * stack. Preemption only by a strictly higher effective level, never within a cooldown; the
 * stack is LIFO and never re-sorted. Every method is synchronous and never throws on input
 * data; misuse (finishing a task it does not hold) throws TypeError.
 */
export class Scheduler {
  readonly #clock: Clock;
  readonly #levels: Fifo<Task>[] = Array.from({ length: MAX_LEVEL + 1 }, () => new Fifo<Task>());
  readonly #stack: Task[] = [];
  #running?: Task;
  #waiting = 0;
  #seq = 0;
  #capacity: number;
  #cooldownMs: number;
  #busySince?: number;

  constructor(options: SchedulerOptions) {
    this.#clock = options.clock;
    this.#capacity = options.capacity ?? DEFAULT_QUEUE_CAPACITY;
    this.#cooldownMs = options.cooldownMs ?? DEFAULT_PREEMPT_COOLDOWN_MS;
  }

  /** Change the queue bound and the cooldown; they apply from the next decision on. */
  configure(settings: { capacity?: number; cooldownMs?: number }): void {
    this.#capacity = settings.capacity ?? this.#capacity;
    this.#cooldownMs = settings.cooldownMs ?? this.#cooldownMs;
  }

  /** Admit `input` at `level`; undefined when the ready queue is full (the caller must refuse aloud). */
  submit(input: Input, level: PriorityLevel): Task | undefined {
    if (this.#waiting >= this.#capacity) return undefined;
    const task: Task = {
      input,
      level,
      seq: this.#seq++,
      state: "queued",
      preemptCount: 0,
      stopped: false,
    };
    this.#levels[level]!.push(task);
    this.#waiting++;
    return task;
  }

  /**
   * If the first waiting task has a strictly higher level than the running task's effective
   * level and the running task is out of its cooldown, suspend the running task onto the stack
   * and make the waiting one run.
   */
  preempt(): Preemption | undefined {
    const running = this.#running;
    const head = this.#peek();
    if (!running || !head || head.level <= effectiveLevel(running)) return undefined;
    if (this.#coolingUntil(running) !== undefined) return undefined;
    running.preemptCount++;
    running.state = "suspended";
    this.#stack.push(running);
    if (this.#stack.length > MAX_LEVEL) {
      throw new RangeError(`Interrupt stack exceeded its structural depth ${MAX_LEVEL}`);
    }
    return { suspended: running, task: this.#run(this.#shift()!) };
  }

  /** When a waiting task is held back only by the running task's cooldown: when that ends. */
  cooldownEndsAt(): number | undefined {
    const running = this.#running;
    const head = this.#peek();
    if (!running || !head || head.level <= effectiveLevel(running)) return undefined;
    return this.#coolingUntil(running);
  }

  /**
   * With nothing running, choose what runs: a waiting task that outranks the top of the stack
   * (or any waiting task when the stack is empty), else the top of the stack resumes.
   */
  next(): Dispatch {
    if (this.#running) throw new TypeError(`Task "${this.#running.input.id}" is still running`);
    const head = this.#peek();
    const top = this.#stack.at(-1);
    if (head && (!top || head.level > effectiveLevel(top))) {
      return { type: "start", task: this.#run(this.#shift()!) };
    }
    if (top) {
      this.#stack.pop();
      const task = this.#run(top);
      task.resumedAt = task.startedAt;
      return { type: "resume", task };
    }
    this.#busySince = undefined;
    return { type: "idle" };
  }

  /** `task` ended (running, or suspended and finished on its own); forget it. */
  finish(task: Task): void {
    if (task === this.#running) {
      this.#running = undefined;
    } else {
      const at = this.#stack.indexOf(task);
      if (at < 0) throw new TypeError(`Task "${task.input.id}" is neither running nor suspended`);
      this.#stack.splice(at, 1); // it finished its own way while suspended: nothing to resume
    }
    task.state = "done";
  }

  /** Mark every queued task stopped and report what runs and what is suspended now. */
  stop(): StopSnapshot {
    const queued: Task[] = [];
    for (const task of this.#waitingTasks()) {
      if (task.stopped) continue;
      task.stopped = true;
      queued.push(task);
    }
    return { running: this.#running, suspended: [...this.#stack], queued };
  }

  /** Remove and return every waiting task (shutdown). */
  drain(): Task[] {
    const all = [...this.#waitingTasks()];
    for (const fifo of this.#levels) fifo.remove(() => true);
    this.#waiting = 0;
    return all;
  }

  /** Queued plain (level-0) inputs not marked stopped, oldest first: what triage may look at. */
  pendingPlain(): Task[] {
    return [...this.#levels[0]!.values()].filter((t) => !t.stopped);
  }

  /** Remove the waiting tasks with these input ids (e.g. for triage); returns those found. */
  take(ids: Iterable<string>): Task[] {
    const wanted = new Set(ids);
    const taken = this.#levels.flatMap((fifo) => fifo.remove((t) => wanted.has(t.input.id)));
    this.#waiting -= taken.length;
    return taken.sort((a, b) => a.seq - b.seq);
  }

  /** The running task. */
  get running(): Task | undefined {
    return this.#running;
  }

  /** Suspended tasks, bottom of the stack first. */
  get stack(): readonly Task[] {
    return this.#stack;
  }

  /** Tasks waiting in the ready queue. */
  get waiting(): number {
    return this.#waiting;
  }

  /** The ready queue's bound. */
  get capacity(): number {
    return this.#capacity;
  }

  /** Monotonic time the current busy period began (something running or suspended). */
  get busySince(): number | undefined {
    return this.#busySince;
  }

  /** True when nothing runs, nothing is suspended and nothing waits. */
  get idle(): boolean {
    return !this.#running && this.#stack.length === 0 && this.#waiting === 0;
  }

  /** The state for `status`. */
  snapshot(): SchedulerSnapshot {
    return {
      running: this.#running && summary(this.#running),
      stack: this.#stack.map(summary),
      waiting: this.#waiting,
      waitingByLevel: this.#levels.map((fifo) => fifo.size),
      capacity: this.#capacity,
      cooldownMs: this.#cooldownMs,
      ...(this.#busySince !== undefined ? { busySince: this.#busySince } : {}),
    };
  }

  #run(task: Task): Task {
    const now = this.#clock.monotonic();
    this.#busySince ??= now;
    task.state = "running";
    task.startedAt = now;
    this.#running = task;
    return task;
  }

  #coolingUntil(task: Task): number | undefined {
    if (task.resumedAt === undefined) return undefined;
    const until = task.resumedAt + this.#cooldownMs;
    return this.#clock.monotonic() < until ? until : undefined;
  }

  #peek(): Task | undefined {
    for (let level = MAX_LEVEL; level >= 0; level--) {
      const task = this.#levels[level]!.peek();
      if (task) return task;
    }
    return undefined;
  }

  #shift(): Task | undefined {
    for (let level = MAX_LEVEL; level >= 0; level--) {
      const task = this.#levels[level]!.shift();
      if (task) {
        this.#waiting--;
        return task;
      }
    }
    return undefined;
  }

  *#waitingTasks(): IterableIterator<Task> {
    for (let level = MAX_LEVEL; level >= 0; level--) yield* this.#levels[level]!.values();
  }
}

function summary(task: Task): TaskSummary {
  return {
    id: task.input.id,
    source: task.input.source,
    level: task.level,
    effectiveLevel: effectiveLevel(task),
    preemptCount: task.preemptCount,
  };
}
