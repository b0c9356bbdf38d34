export interface AcceptCommand {
  orderId: number;
  reviewerId: number;
  seats?: number[] | undefined;
}
