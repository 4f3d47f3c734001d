import { readRunResource } from '../../calls/index.js';
import type { Db } from '../../db/client.js';

/** A resource's bytes and type, as the run that stored it reads them. */
export interface RunResource {
  uri: string;
  mimeType: string;
  size: number;
  content: Buffer;
}

/**
 * What a run may open of the content-addressed resources: those linked to it (its cut results
 * and stored outputs). Another run's resource reads as absent, exactly like an unknown address.
 */
export class RunResources {
  constructor(private readonly db: Db) {}

  read(runId: string, uri: string): Promise<RunResource | null> {
    return readRunResource(this.db, uri, runId);
  }
}
