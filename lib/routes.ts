/**
 * The API's routes: one Lambda per route, named by its file in `functions/`. The CDK stack and the
 * local runtime both build their routing from this list, so they cannot disagree.
 */
export interface Route {
  /** API Gateway resource path. */
  readonly path: string;
  /** The file in functions/ (without extension) whose `handler` serves it. */
  readonly functionName: string;
}

export const ROUTES: readonly Route[] = [{ path: '/idp/v1/otp/send', functionName: 'otp-send' }];
