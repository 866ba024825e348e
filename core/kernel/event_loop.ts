/**
 * The event loop: acts on the Scheduler's decisions. It starts turns, suspends a preempted
 * turn (its in-flight LLM request is aborted; tools keep running), resumes it once the
 * preempting work is done with notes of what happened meanwhile, and carries out stop.
 * Every submitted task ends in exactly one `deliver` call.
 */
import type { EventBus } from "../events.ts";
import type { Clock, Logger, TimerHandle } from "../ports.ts";
import type { Input, PriorityLevel, Reply } from "../input.ts";
import { Scheduler, type Task } from "./scheduler.ts";
import { TurnControl } from "./turn_control.ts";
import { errorMessage } from "../errors.ts";

/** Options of an EventLoop. */
export interface EventLoopOptions {
  clock: Clock;
  logger: Logger;
  events: EventBus;
  /** Defaults to a Scheduler with the default bound and cooldown. */
  scheduler?: Scheduler;
  /** Run the turn of `input`. Must settle; a rejection becomes an error reply. */
  run(input: Input, signal: AbortSignal, control: TurnControl): Promise<Reply>;
  /** Hand the one terminal reply of `input` to its sender. */
  deliver(input: Input, reply: Reply): void;
  /** Called after what runs, waits or is suspended changed (for status events). */
  onChange?(): void;
}

/** What stop() did. */
export interface StopResult {
  /** A turn was running (it is cancelled). */
  wasRunning: boolean;
  /** Suspended turns cancelled with it. */
  suspended: number;
  /** Queued inputs that will short-circuit at pre_action. */
  queued: number;
}

interface Frame {
  task: Task;
  controller: AbortController;
  control: TurnControl;
  /** Operation counter when it started; notes go to frames suspended before that. */
  startedOp: number;
  suspendedOp?: number;
}

const STOP_REASON = "Stopped by the user";
const CANCEL_REASON = "Cancelled: the sender went away";

/** Runs scheduled tasks; one running turn at a time, suspended turns held on the stack. */
export class EventLoop {
  /** The scheduling policy and its queues. */
  readonly scheduler: Scheduler;
  readonly #options: EventLoopOptions;
  readonly #frames = new Map<Task, Frame>();
  /** Removes the abort listener of a task submitted with a signal. */
  readonly #unlisten = new WeakMap<Task, () => void>();
  #op = 0;
  #kicked = false;
  #cooldown?: { at: number; timer: TimerHandle };
  #idle: (() => void)[] = [];
  #turns = 0;

  constructor(options: EventLoopOptions) {
    this.#options = options;
    this.scheduler = options.scheduler ?? new Scheduler({ clock: options.clock });
  }

  /**
   * Admit `input` at `level`; undefined when the queue is full (the caller refuses aloud). When
   * `signal` aborts (its sender went away), the task is cancelled: see cancel().
   */
  submit(input: Input, level: PriorityLevel, signal?: AbortSignal): Task | undefined {
    const task = this.scheduler.submit(input, level);
    if (!task) return undefined;
    if (signal) {
      const onAbort = () => this.cancel(task);
      if (signal.aborted) queueMicrotask(onAbort);
      else {
        signal.addEventListener("abort", onAbort, { once: true });
        this.#unlisten.set(task, () => signal.removeEventListener("abort", onAbort));
      }
    }
    this.#kick();
    return task;
  }

  /**
   * Cancel one task whose sender went away: a running or suspended turn is aborted (it answers
   * "stopped"); a waiting one leaves the queue at once with a "stopped" reply. False when the
   * task has already finished or was taken out of the scheduler.
   */
  cancel(task: Task): boolean {
    this.#unlisten.get(task)?.();
    this.#unlisten.delete(task);
    const frame = this.#frames.get(task);
    if (frame) {
      frame.controller.abort(new DOMException(CANCEL_REASON, "AbortError"));
      return true;
    }
    if (this.scheduler.take([task.input.id]).length === 0) return false;
    this.#options.logger.info("Queued input cancelled", { inputId: task.input.id });
    this.#options.deliver(task.input, {
      inputId: task.input.id,
      channel: task.input.channel,
      text: CANCEL_REASON,
      status: "stopped",
    });
    this.#schedule();
    return true;
  }

  /**
   * Cancel the running turn and every suspended one, and mark the inputs queued right now to
   * short-circuit at pre_action. Inputs submitted afterwards run normally.
   */
  stop(): StopResult {
    const snapshot = this.scheduler.stop();
    const reason = new DOMException(STOP_REASON, "AbortError");
    for (const task of [snapshot.running, ...snapshot.suspended]) {
      if (task) this.#frames.get(task)?.controller.abort(reason);
    }
    this.#options.logger.info("Stop", {
      running: snapshot.running?.input.id,
      suspended: snapshot.suspended.length,
      queued: snapshot.queued.length,
    });
    return {
      wasRunning: snapshot.running !== undefined,
      suspended: snapshot.suspended.length,
      queued: snapshot.queued.length,
    };
  }

  /** Remove every waiting task unrun (shutdown) and cancel what runs; the caller replies to them. */
  shutdown(): Task[] {
    const waiting = this.scheduler.drain();
    const reason = new DOMException("The agent is shutting down", "AbortError");
    for (const frame of this.#frames.values()) frame.controller.abort(reason);
    this.#notifyChange();
    return waiting;
  }

  /** Resolves when nothing runs, nothing is suspended and nothing waits. */
  whenIdle(): Promise<void> {
    if (this.#isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.#idle.push(resolve));
  }

  /** Turns completed so far. */
  get turns(): number {
    return this.#turns;
  }

  /** Schedule once, after the caller's stack unwinds: never start a turn inside an inject call. */
  #kick(): void {
    if (this.#kicked) return;
    this.#kicked = true;
    queueMicrotask(() => {
      this.#kicked = false;
      this.#schedule();
    });
  }

  #schedule(): void {
    const { scheduler } = this;
    for (let p = scheduler.preempt(); p; p = scheduler.preempt()) {
      const frame = this.#frames.get(p.suspended)!;
      frame.suspendedOp = ++this.#op;
      frame.control.suspend();
      this.#options.events.publish({
        type: "preempted",
        turnId: p.suspended.input.id,
        by: p.task.input.id,
        level: p.task.level,
      });
      this.#start(p.task, true);
    }
    if (!scheduler.running) {
      const next = scheduler.next();
      if (next.type === "start") this.#start(next.task);
      if (next.type === "resume") this.#resume(next.task);
    }
    this.#armCooldown(scheduler.cooldownEndsAt());
    this.#notifyChange();
    if (this.#isIdle()) { for (const resolve of this.#idle.splice(0)) resolve(); }
  }

  /**
   * Start `task`'s turn. Right after a preemption the turn begins on a later event-loop turn
   * (Clock.defer), so the cancelled request's close reaches the wire before the kernel spends
   * a millisecond building the next request.
   */
  #start(task: Task, afterPreemption = false): void {
    const frame: Frame = {
      task,
      controller: new AbortController(),
      control: new TurnControl({
        retryCancelled: !task.input.consolidation,
        stopped: task.stopped,
      }),
      startedOp: ++this.#op,
    };
    this.#frames.set(task, frame);
    const begin = () => {
      new Promise<Reply>((resolve) =>
        resolve(this.#options.run(task.input, frame.controller.signal, frame.control))
      )
        .catch((error): Reply => this.#rejected(task, error))
        .then((reply) => this.#finish(frame, reply));
    };
    const { clock } = this.#options;
    if (afterPreemption && clock.defer) clock.defer(begin);
    else queueMicrotask(begin);
  }

  #rejected(task: Task, error: unknown): Reply {
    this.#options.logger.error("Turn runner rejected", {
      turnId: task.input.id,
      error: errorMessage(error),
    });
    return {
      inputId: task.input.id,
      channel: task.input.channel,
      text: errorMessage(error),
      status: "error",
      errorCode: "internal",
    };
  }

  #resume(task: Task): void {
    const frame = this.#frames.get(task)!;
    frame.suspendedOp = undefined;
    frame.control.resume();
    this.#options.events.publish({ type: "resumed", turnId: task.input.id });
  }

  #finish(frame: Frame, reply: Reply): void {
    const { task } = frame;
    this.scheduler.finish(task);
    this.#frames.delete(task);
    this.#unlisten.get(task)?.();
    this.#unlisten.delete(task);
    this.#turns++;
    const note = { source: task.input.source, text: task.input.text, reply };
    for (const below of this.scheduler.stack) {
      const held = this.#frames.get(below)!;
      if (held.suspendedOp !== undefined && held.suspendedOp < frame.startedOp) {
        held.control.note(note);
      }
    }
    try {
      this.#options.deliver(task.input, reply);
    } catch (error) {
      this.#options.logger.error("Reply delivery threw", {
        inputId: task.input.id,
        error: errorMessage(error),
      });
    }
    this.#schedule();
  }

  #armCooldown(at: number | undefined): void {
    if (this.#cooldown?.at === at) return;
    this.#cooldown?.timer.cancel();
    this.#cooldown = undefined;
    if (at === undefined) return;
    const { clock } = this.#options;
    const timer = clock.setTimer(Math.max(0, at - clock.monotonic()), () => {
      this.#cooldown = undefined;
      this.#schedule();
    });
    this.#cooldown = { at, timer };
  }

  #isIdle(): boolean {
    return this.scheduler.idle && this.#frames.size === 0;
  }

  #notifyChange(): void {
    try {
      this.#options.onChange?.();
    } catch (error) {
      this.#options.logger.error("Scheduler change listener threw", { error: errorMessage(error) });
    }
  }
}
