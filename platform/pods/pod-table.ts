/** The worker pods the platform tracks, by id: the pool's one record of them. */
import { type WorkerPod } from './pod';

/** Every tracked pod (live ones, and exited ones for a while so REST can still show them). */
export class PodTable {
  private readonly pods = new Map<string, WorkerPod>();

  add(pod: WorkerPod): void {
    this.pods.set(pod.id, pod);
  }

  get(podId: string): WorkerPod | undefined {
    return this.pods.get(podId);
  }

  forget(podId: string): void {
    this.pods.delete(podId);
  }

  ofEndpoint(endpointId: string): WorkerPod[] {
    return [...this.pods.values()].filter((p) => p.endpointId === endpointId);
  }

  all(): WorkerPod[] {
    return [...this.pods.values()];
  }
}
