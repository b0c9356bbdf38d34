/** Shipment ids in the examples (any positive integer would do). */
const SHIPMENT_EXAMPLE_ID = 1201;

/**
 * Examples in the document. The request bodies are the ones the tests send (test/support/api.ts
 * takes them from here), and a test runs each one against the service and checks each answer
 * example against the document's schema, so none can go stale.
 */
const sellerPickup = {
  ship_from_name: 'Sam Seller',
  ship_from_phone_number_attributes: { label: 'work', country_code: '+1', number: '2125550100', extension: '12' },
  ship_from_address_attributes: {
    name: 'Box Office',
    street_address: '1 Main St',
    extended_address: 'Suite 2',
    locality: 'New York',
    region: 'NY',
    postal_code: '10001',
    country_code: 'US',
  },
  pickup_time_range: '6pm-7pm on show day',
  pickup_instructions: 'Ask for Sam at will call',
} as const;

const buyerPickup = {
  ship_to_name: 'Bo Buyer',
  phone_number_attributes: { label: 'cell', country_code: '+1', number: '3125550199', extension: null },
  notes: 'Arriving late',
} as const;

const shipmentUrl = (id: number) => `/shipments/${id}`;

export const EXAMPLES = {
  accept: { reviewer_id: 100 },
  acceptedOrder: {
    id: 700,
    oid: '1001-700',
    state: 'accepted',
    shipments: [{ id: SHIPMENT_EXAMPLE_ID, url: shipmentUrl(SHIPMENT_EXAMPLE_ID), type: 'TBD' }],
    livemode: true,
  },
  mobileLink: { mobile_transfer_type: 'XMobileLink' },
  mobileLinkShipment: {
    id: SHIPMENT_EXAMPLE_ID + 1,
    url: shipmentUrl(SHIPMENT_EXAMPLE_ID + 1),
    type: 'XMobileLink',
    state: 'pending',
    livemode: true,
  },
  sellerPickup,
  buyerPickup,
  complete: { x_mobile_link: 'https://tickets.example.com/t/abc123' },
  completedShipment: {
    id: SHIPMENT_EXAMPLE_ID + 1,
    url: shipmentUrl(SHIPMENT_EXAMPLE_ID + 1),
    type: 'XMobileLink',
    state: 'delivered',
    x_mobile_link: 'https://tickets.example.com/t/abc123',
    livemode: true,
  },
};
