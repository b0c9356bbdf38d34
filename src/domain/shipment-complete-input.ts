export interface CompleteCommand {
  shipmentId: number;
  xMobileLink?: string | undefined;
  transferSource?: string | undefined;
}
